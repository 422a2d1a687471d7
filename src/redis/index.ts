export { startPrivateRedis, DEFAULT_PRIVATE_REDIS } from './private-redis.js';
export type { PrivateRedis, PrivateRedisOptions } from './private-redis.js';
export { findFreePort } from './free-port.js';
export { rawCommands, encodeCommand, parseRawReply } from './raw-command.js';
export { versionFromInfo } from './info.js';
export type { RawReply, RawTarget } from './raw-command.js';
export { startPrivateCluster, DEFAULT_PRIVATE_CLUSTER } from './private-cluster.js';
export type { PrivateCluster, PrivateClusterNode, PrivateClusterOptions } from './private-cluster.js';

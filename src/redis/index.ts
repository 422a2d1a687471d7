export { startPrivateRedis } from './private-redis.js';
export type { PrivateRedis, PrivateRedisOptions } from './private-redis.js';
export { findFreePort } from './free-port.js';
export { rawCommands, encodeCommand } from './raw-command.js';
export { versionFromInfo } from './info.js';
export type { RawReply } from './raw-command.js';
export { startPrivateCluster } from './private-cluster.js';
export type { PrivateCluster, PrivateClusterNode, PrivateClusterOptions } from './private-cluster.js';

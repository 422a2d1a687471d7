import { bandwidthToxic } from './bandwidth.js';
import type { ToxicDefinition } from './definition.js';
import { latencyToxic } from './latency.js';
import { limitDataToxic } from './limit-data.js';
import { noopToxic } from './noop.js';
import { packetLossToxic } from './packet-loss.js';
import { failoverToxic } from './redis/failover.js';
import { redisDropToxic } from './redis/redis-drop.js';
import { redisErrorToxic } from './redis/redis-error.js';
import { redisLatencyToxic } from './redis/redis-latency.js';
import { resetPeerToxic } from './reset-peer.js';
import { slicerToxic } from './slicer.js';
import { slowCloseToxic } from './slow-close.js';
import { timeoutToxic } from './timeout.js';

/** Every toxic type by its toxiproxy name. A new toxic is one file and one line here. */
export const TOXIC_TYPES: ReadonlyMap<string, ToxicDefinition> = new Map(
  [
    latencyToxic,
    bandwidthToxic,
    slowCloseToxic,
    timeoutToxic,
    resetPeerToxic,
    slicerToxic,
    limitDataToxic,
    packetLossToxic,
    noopToxic,
    redisErrorToxic,
    redisLatencyToxic,
    redisDropToxic,
    failoverToxic,
  ].map((d) => [d.type, d as ToxicDefinition]),
);

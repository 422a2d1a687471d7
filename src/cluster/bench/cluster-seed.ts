import { startPrivateCluster, type PrivateCluster } from '../../redis/private-cluster.js';

/**
 * `upstream`, else a private cluster (`own`, to stop). A Ctrl-C while it starts reaches redis-cli
 * --cluster create too (one process group), so a start that fails once aborted is no error: the
 * run ends with nothing measured (undefined).
 */
export async function clusterSeed(upstream: string | undefined, signal: AbortSignal | undefined): Promise<{ seed: string; own?: PrivateCluster } | undefined> {
  if (upstream !== undefined) return { seed: upstream };
  try {
    const own = await startPrivateCluster({});
    return { seed: own.address, own };
  } catch (err) {
    if (signal?.aborted) return undefined;
    throw err;
  }
}

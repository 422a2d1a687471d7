/**
 * Cluster mode's tap events as one stream: every node proxy numbers its connections from 1, so the
 * events of all nodes get connection ids unique across the cluster proxy (a counter shared by the
 * nodes, keyed by node and the node's own id), and each open event names its node and listener.
 * A consumer (the recorder, a library user's onEvent) then sees one proxy with many connections.
 */
import type { TapEvent } from '../stats/types.js';

export interface NodeAddresses {
  /** The real node, "host:port". */
  node: string;
  /** Its listener, "host:port"; known once the listener is bound, hence a getter. */
  listen: () => string;
}

export class ClusterEventIds {
  private next = 1;
  /** Per node: the node proxy's connection id -> the cluster-wide one, while the connection lives. */
  private readonly ids = new Map<string, Map<number, number>>();

  /** The onEvent to give one node's proxy: remaps, adds the node to open events, passes on to `sink`. */
  forNode(at: NodeAddresses, sink: (e: TapEvent) => void): (e: TapEvent) => void {
    let byConn = this.ids.get(at.node);
    if (!byConn) this.ids.set(at.node, (byConn = new Map()));
    const map = byConn;
    return (e) => {
      let id = map.get(e.conn);
      if (id === undefined) map.set(e.conn, (id = this.next++));
      // close is a connection's last event (the tap emits unfinished requests before it).
      if (e.type === 'close') map.delete(e.conn);
      if (e.type === 'open') sink({ ...e, conn: id, node: at.node, listen: at.listen() });
      else sink({ ...e, conn: id });
    };
  }
}

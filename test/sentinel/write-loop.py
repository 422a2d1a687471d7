# A write loop through redis-py's Sentinel.master_for, for test/sentinel/failover.test.ts.
# argv: sentinel host, port, master name, key prefix, wait (0 or 1). Writes until stdin closes,
# printing one JSON line per write: its key, start and end (ms, epoch), whether it was
# acknowledged, and its error.
import json, sys, threading, time
from redis.sentinel import Sentinel

host, port, name, prefix, use_wait = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5] == '1'
stop = threading.Event()
threading.Thread(target=lambda: (sys.stdin.read(), stop.set()), daemon=True).start()
sentinel = Sentinel([(host, port)], socket_timeout=0.5)
master = sentinel.master_for(name, socket_timeout=0.5)
i = 0
while not stop.is_set():
    key = '%s%d' % (prefix, i)
    i += 1
    start = time.time() * 1000
    try:
        ok = master.set(key, i) is True
        if ok and use_wait:
            ok = master.wait(1, 100) >= 1
        print(json.dumps([key, start, time.time() * 1000, ok, None]), flush=True)
    except Exception as e:  # every error the client surfaced is counted
        print(json.dumps([key, start, time.time() * 1000, False, type(e).__name__ + ': ' + str(e)[:80]]), flush=True)
        time.sleep(0.05)

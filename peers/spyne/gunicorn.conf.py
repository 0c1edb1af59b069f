# gunicorn settings for the Spyne peer (serve passes --bind; the rest is here).
# Sized for the 2-core benchmark machine; see README.md for the figures.

# Spyne's work is pure Python (lxml parsing aside), so the GIL serialises it
# within a process: one worker process per core does the CPU work ...
workers = 2
# ... and gthread gives each worker a few threads, so that a client waiting on
# the network does not hold a whole worker, and HTTP/1.1 keep-alive (the sync
# worker closes every connection).
worker_class = 'gthread'
threads = 4
# Keep idle persistent connections open between a benchmark's calls; the
# default of 2 s would close them during a pause between load steps.
keepalive = 60
# Load the application once in the master before forking: workers start
# faster and share its memory.
preload_app = True
# No access log: one log line per request costs more than a Spyne call's
# I/O. Errors still go to stderr (the peer's log).
accesslog = None
errorlog = '-'
loglevel = 'warning'
# SIGTERM lets requests in flight finish for up to this many seconds;
# peerctl stop sends SIGKILL after 5 s, so finish before that.
graceful_timeout = 3
# gunicorn sets TCP_NODELAY on its TCP listening sockets itself (sock.py),
# so small responses are not held back by Nagle's algorithm.

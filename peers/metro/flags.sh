# Sourced by serve and version: the JDK and JVM flags of ../lib/maven.sh and
# this peer's own, so that the version line shows every flag serve uses.
. "$(dirname "${BASH_SOURCE[0]}")/../lib/maven.sh"
jvm_flags+=(
  # TCP_NODELAY on accepted sockets: the JDK server writes headers and body
  # separately, and meets delayed ACKs without it (~40 ms a request at 1 client).
  -Dsun.net.httpserver.nodelay=true
  # A request must arrive, and a response be taken, within 5 s (as
  # soapbench-server's defaults): stalled clients cannot hold the workers.
  -Dsun.net.httpserver.maxReqTime=5 -Dsun.net.httpserver.maxRspTime=5
  # Metro's endpoint monitoring (JMX via gmbal) costs work per request.
  -Dcom.sun.xml.ws.monitoring.endpoint=false
)

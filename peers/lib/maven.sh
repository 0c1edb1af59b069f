# Sourced by the Maven-built JVM peers (cxf, spring-ws, axis2, metro): the JDK
# they run on, the JVM flags they share, and the build from their pom.xml.
#
# Debian's OpenJDK 17 by its package path, so that another JDK first on PATH
# (or chosen by update-alternatives) is never the one measured.
java_home=/usr/lib/jvm/java-17-openjdk-amd64
java=$java_home/bin/java

# The JVM flags every Maven peer runs with (a peer may add its own), and which
# its `version` line shows, so that results files record them:
jvm_flags=(
  # A fixed heap, reserved and touched up front: no resizing during a run; a
  # request's garbage (a few KB) never needs more.
  -Xms512m -Xmx512m -XX:+AlwaysPreTouch
  # The throughput collector: all garbage here dies young, and a pause of a
  # few ms costs less than the concurrent collectors' barriers on every call.
  -XX:+UseParallelGC
)

# jvm_version: "OpenJDK 17.0.15" of the JDK above.
jvm_version() {
  "$java" -XX:TieredStopAtLevel=1 -version 2>&1 |
    sed -n 's/^OpenJDK Runtime Environment[^(]*(build \([0-9.]*\).*/OpenJDK \1/p'
}

# maven_build DIR: `mvn compile` of DIR/pom.xml into DIR/build/, and the
# dependencies' class path into DIR/build/classpath. Offline (`mvn -o`) when
# SOAPBENCH_MAVEN_OFFLINE=1, else Maven downloads only what ~/.m2 lacks
# (nothing, once a first build has filled it). Again only when an input
# changed (the stamp).
maven_build() {
  local dir=$1 inputs stamp=$1/build/inputs offline=()
  inputs=$( (cd "$dir" && sha256sum pom.xml install "$root/wsdl/echo.wsdl" "$root/peers/lib/maven.sh" \
              $(find src -type f 2>/dev/null | sort)); "$java" -version 2>&1 | head -1)
  if [[ -f $stamp && $(<"$stamp") == "$inputs" && -s $dir/build/classpath ]]; then
    return 0
  fi
  [[ ${SOAPBENCH_MAVEN_OFFLINE:-0} == 1 ]] && offline=(-o)
  rm -rf "$dir/build"
  # -q: the download log of a first build is thousands of lines; errors still show.
  # sed: Maven 3.8 still writes colour resets (ESC[0m) with -B and style.color=never.
  JAVA_HOME=$java_home mvn -q -B -Dstyle.color=never "${offline[@]}" -f "$dir/pom.xml" \
    compile dependency:build-classpath -Dmdep.outputFile="$dir/build/classpath" </dev/null 2>&1 |
    sed 's/\x1b\[[0-9;]*m//g'
  echo "$inputs" > "$stamp"
}

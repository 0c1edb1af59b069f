# Sourced by install, version and serve: where the JDK, Axis and the build live.
jdk=/usr/lib/jvm/java-17-openjdk-amd64
java=$jdk/bin/java
javac=$jdk/bin/javac
build=$dir/build
classes=$build/classes
# Axis 1.4 and the jars its Debian package depends on (the names Debian links in
# /usr/share/java). activation and mail only switch Axis's attachment support on.
axis_cp=$(printf '/usr/share/java/%s:' axis.jar jaxrpc.jar saaj.jar wsdl4j.jar \
  commons-discovery.jar commons-logging.jar javax.activation.jar javax.mail.jar)
axis_cp=${axis_cp%:}

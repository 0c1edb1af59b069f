# Sourced by install, serve and version: where the JDK, the JAX-WS RI and the
# build are. Debian's OpenJDK 17 by its package path, so that another JDK
# first on PATH (or chosen by update-alternatives) is never the one measured.
java_home=/usr/lib/jvm/java-17-openjdk-amd64
java=$java_home/bin/java
javac=$java_home/bin/javac
# jaxws-rt.jar and jaxws-tools.jar name their dependencies in their manifests'
# Class-Path, so these two are the whole class path of runtime and generator.
jaxws_rt=/usr/share/java/jaxws-rt.jar
jaxws_tools=/usr/share/java/jaxws-tools.jar
build=$dir/build
classes=$build/classes

// Prints the stack's version line for peers/metro/version from the runtime
// serve uses, e.g. "Eclipse Metro, XML-WS Runtime 4.0.3, JDK HTTP server":
// the script adds the JVM's version and flags.
package soapbench.peer.metro;

import com.sun.xml.ws.util.RuntimeVersion;

public final class Version {
    public static void main(String[] args) {
        System.out.printf("Eclipse Metro, %s, JDK HTTP server%n", RuntimeVersion.VERSION.BUILD_VERSION);
    }

    private Version() {
    }
}

// Prints the stack's version line for peers/jaxws/version, from the runtime
// that serve uses: e.g. "JAX-WS RI 2.3.0.2, OpenJDK 17.0.15".
package soapbench.peer.jaxws;

import com.sun.xml.ws.util.RuntimeVersion;

public final class Version {
    public static void main(String[] args) {
        Runtime.Version java = Runtime.version();
        System.out.printf("%s, OpenJDK %d.%d.%d%n", RuntimeVersion.VERSION.BUILD_VERSION,
                java.feature(), java.interim(), java.update());
    }

    private Version() {
    }
}

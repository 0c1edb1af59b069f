// Prints the stack's version line for peers/spring-ws/version from the jars
// serve uses, e.g. "Spring-WS 4.1.2, Spring Boot 3.5.7, Tomcat 10.1.48": the
// script adds the JVM's version and flags.
package soapbench.peer.springws;

import org.springframework.boot.SpringBootVersion;
import org.springframework.ws.transport.http.MessageDispatcherServlet;

public final class Version {
    public static void main(String[] args) {
        System.out.printf("Spring-WS %s, Spring Boot %s, Tomcat %s%n",
                MessageDispatcherServlet.class.getPackage().getImplementationVersion(),
                SpringBootVersion.getVersion(), org.apache.catalina.util.ServerInfo.getServerNumber());
    }

    private Version() {
    }
}

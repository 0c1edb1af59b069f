// The Spring Boot application of the spring-ws peer: Spring-WS's
// MessageDispatcherServlet on Boot's embedded Tomcat, at every path (so
// POST /echo reaches it), serving the WSDL itself on GET /echo?wsdl.
//
//   java ... soapbench.peer.springws.EchoApplication --server.port=PORT --server.address=BIND
//
// Tomcat's tuning is in application.properties; peers/spring-ws/serve starts it.
package soapbench.peer.springws;

import jakarta.servlet.http.HttpServletRequest;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.autoconfigure.webservices.WebServicesAutoConfiguration;
import org.springframework.boot.web.servlet.ServletRegistrationBean;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.core.io.ClassPathResource;
import org.springframework.ws.config.annotation.EnableWs;
import org.springframework.ws.transport.http.MessageDispatcherServlet;
import org.springframework.ws.wsdl.WsdlDefinition;
import org.springframework.ws.wsdl.wsdl11.SimpleWsdl11Definition;

// Boot's web services auto-configuration maps its dispatcher servlet under
// /services/* and serves a WSDL only at NAME.wsdl: replaced by @EnableWs (the
// same endpoint mappings and adapters) and the registration below.
@SpringBootApplication(exclude = WebServicesAutoConfiguration.class)
@EnableWs
public class EchoApplication {
    /** The WSDL's bean name: Spring-WS serves it at /echo.wsdl, and here also at /echo?wsdl. */
    static final String WSDL = "echo";

    public static void main(String[] args) {
        SpringApplication.run(EchoApplication.class, args);
    }

    @Bean
    ServletRegistrationBean<MessageDispatcherServlet> echoDispatcherServlet(ApplicationContext context) {
        MessageDispatcherServlet servlet = new WsdlQueryDispatcherServlet();
        servlet.setApplicationContext(context);
        // The WSDL's soap:address becomes the address the client asked for.
        servlet.setTransformWsdlLocations(true);
        ServletRegistrationBean<MessageDispatcherServlet> bean = new ServletRegistrationBean<>(servlet, "/*");
        bean.setLoadOnStartup(1);
        return bean;
    }

    // The hand-written WSDL itself, as served: contract first.
    @Bean(name = WSDL)
    SimpleWsdl11Definition echo() {
        return new SimpleWsdl11Definition(new ClassPathResource("wsdl/echo.wsdl"));
    }

    /** GET PATH?wsdl answers the WSDL, as JAX-WS stacks do and clients expect. */
    static final class WsdlQueryDispatcherServlet extends MessageDispatcherServlet {
        @Override
        protected WsdlDefinition getWsdlDefinition(HttpServletRequest request) {
            if ("GET".equals(request.getMethod()) && "wsdl".equalsIgnoreCase(request.getQueryString())) {
                return getWebApplicationContext().getBean(WSDL, WsdlDefinition.class);
            }
            return super.getWsdlDefinition(request);
        }
    }
}

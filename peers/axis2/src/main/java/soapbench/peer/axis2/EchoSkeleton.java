// The echo service of soapbench's contract (wsdl/echo.wsdl) on Apache Axis2:
// the server-side interface and the ADB beans (soapbench.echo.types) are
// generated from the WSDL by wsdl2java at install; services.xml names this
// class as the ServiceClass in place of the generated, empty EchoServiceSkeleton.
package soapbench.peer.axis2;

import soapbench.echo.EchoServiceSkeletonInterface;
import soapbench.echo.types.EchoBinary;
import soapbench.echo.types.EchoBinaryResponse;
import soapbench.echo.types.EchoString;
import soapbench.echo.types.EchoStringResponse;
import soapbench.echo.types.EchoStruct;
import soapbench.echo.types.EchoStructResponse;

public class EchoSkeleton implements EchoServiceSkeletonInterface {
    // ADB parses the request into beans and the message receiver serialises
    // the response's beans: each response carries the request's own values.

    @Override
    public EchoStringResponse echoString(EchoString request) {
        EchoStringResponse response = new EchoStringResponse();
        response.setText(request.getText());
        return response;
    }

    @Override
    public EchoStructResponse echoStruct(EchoStruct request) {
        EchoStructResponse response = new EchoStructResponse();
        response.setItem(request.getItem());
        return response;
    }

    @Override
    public EchoBinaryResponse echoBinary(EchoBinary request) {
        EchoBinaryResponse response = new EchoBinaryResponse();
        response.setData(request.getData());
        return response;
    }
}

package soapbench.peer.axis1;

import soapbench.echo.EchoItem;
import soapbench.echo.EchoPortType;

/**
 * The echo service: implements the port type WSDL2Java generated from
 * wsdl/echo.wsdl. Axis unwraps the document/literal wrapper elements (the
 * deployment's style="wrapped"), so each operation gets and returns the
 * wrapper's children, and Axis wraps the result in the *Response element.
 * Deployed with scope="Application": one instance serves every request.
 */
public final class EchoImpl implements EchoPortType {
    @Override
    public String echoString(String text) {
        return text;
    }

    /**
     * item is null when the request has no item. Returned as null, Axis would
     * answer with <item xsi:nil="true"/>, an item the schema does not allow
     * (EchoItem is not nillable); an empty array gives no item at all.
     */
    @Override
    public EchoItem[] echoStruct(EchoItem[] item) {
        return item == null ? NO_ITEMS : item;
    }

    private static final EchoItem[] NO_ITEMS = new EchoItem[0];

    @Override
    public byte[] echoBinary(byte[] data) {
        return data;
    }
}

package soapbench.peer.axis1;

import javax.xml.namespace.QName;
import org.apache.axis.encoding.ser.BaseDeserializerFactory;
import org.apache.axis.encoding.ser.SimpleDeserializer;

/** Reads xsd:dateTime into a PreciseCalendar, keeping the whole fraction (see there why). */
public final class DateTimeDeserializerFactory extends BaseDeserializerFactory {
    private static final long serialVersionUID = 1L;

    /** The constructor Axis calls for a typeMapping in a WSDD file. */
    public DateTimeDeserializerFactory(Class<?> javaType, QName xmlType) {
        super(Deserializer.class, xmlType, javaType);
    }

    public static final class Deserializer extends SimpleDeserializer {
        private static final long serialVersionUID = 1L;

        public Deserializer(Class<?> javaType, QName xmlType) {
            super(javaType, xmlType);
        }

        /** An invalid value throws, and Axis answers with a fault that names it. */
        @Override
        public Object makeValue(String source) {
            return new PreciseCalendar(PreciseCalendar.parse(source));
        }
    }
}

package soapbench.peer.axis1;

import java.time.Instant;
import java.util.Calendar;
import java.util.Date;
import javax.xml.namespace.QName;
import org.apache.axis.encoding.SerializationContext;
import org.apache.axis.encoding.ser.BaseSerializerFactory;
import org.apache.axis.encoding.ser.SimpleSerializer;

/** Writes xsd:dateTime with the whole fraction of a PreciseCalendar (see there why). */
public final class DateTimeSerializerFactory extends BaseSerializerFactory {
    private static final long serialVersionUID = 1L;

    /** The constructor Axis calls for a typeMapping in a WSDD file. */
    public DateTimeSerializerFactory(Class<?> javaType, QName xmlType) {
        super(Serializer.class, xmlType, javaType);
    }

    public static final class Serializer extends SimpleSerializer {
        private static final long serialVersionUID = 1L;

        public Serializer(Class<?> javaType, QName xmlType) {
            super(javaType, xmlType);
        }

        @Override
        public String getValueAsString(Object value, SerializationContext context) {
            if (value instanceof PreciseCalendar) return PreciseCalendar.format(((PreciseCalendar) value).instant());
            if (value instanceof Calendar) return PreciseCalendar.format(((Calendar) value).toInstant());
            if (value instanceof Date) return PreciseCalendar.format(((Date) value).toInstant());
            throw new IllegalArgumentException("not a date and time: " + value.getClass().getName());
        }
    }
}

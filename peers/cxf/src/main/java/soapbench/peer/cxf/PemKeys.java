// The server's key and certificate chain from PEM files (as soapbench-server
// takes them, e.g. tests/tls/make-certs' server.pem and server.key) into the
// KeyManagers CXF's TLSServerParameters want: a PKCS12 KeyStore built in
// memory, so that no converted copy of the key is ever written to disk and no
// openssl run is needed at start.
package soapbench.peer.cxf;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;

final class PemKeys {
    private static final Pattern PKCS8 = Pattern.compile(
            "-----BEGIN PRIVATE KEY-----([A-Za-z0-9+/=\\s]+)-----END PRIVATE KEY-----");

    // The KeyStore's password: it never leaves this process, but the API wants one.
    private static final char[] PASSWORD = "soapbench".toCharArray();

    static KeyManager[] keyManagers(Path certFile, Path keyFile) throws IOException, GeneralSecurityException {
        Certificate[] chain = readChain(certFile);
        PrivateKey key = readKey(keyFile);
        checkPair(key, chain[0].getPublicKey(), certFile, keyFile);
        KeyStore store = KeyStore.getInstance("PKCS12");
        store.load(null, null);
        store.setKeyEntry("server", key, PASSWORD, chain);
        KeyManagerFactory factory = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        factory.init(store, PASSWORD);
        return factory.getKeyManagers();
    }

    // Every certificate of the file, the server's first, then its chain (the
    // order TLS sends them in, and the order OpenSSL's chain files have).
    private static Certificate[] readChain(Path file) throws IOException, GeneralSecurityException {
        try (InputStream in = Files.newInputStream(file)) {
            Certificate[] chain = CertificateFactory.getInstance("X.509").generateCertificates(in)
                    .toArray(new Certificate[0]);
            if (chain.length == 0) {
                throw new GeneralSecurityException(file + ": no PEM certificate in it");
            }
            return chain;
        } catch (java.security.cert.CertificateException e) {
            throw new GeneralSecurityException(file + ": not a PEM certificate: " + e.getMessage(), e);
        }
    }

    // An unencrypted PKCS#8 key ("BEGIN PRIVATE KEY", what `openssl genpkey`
    // writes), EC or RSA. The older "BEGIN EC/RSA PRIVATE KEY" forms and
    // encrypted keys are refused with the command that converts them.
    private static PrivateKey readKey(Path file) throws IOException, GeneralSecurityException {
        String pem = Files.readString(file, StandardCharsets.US_ASCII);
        Matcher m = PKCS8.matcher(pem);
        if (!m.find()) {
            throw new GeneralSecurityException(file + ": expected an unencrypted PKCS#8 key"
                    + " (-----BEGIN PRIVATE KEY-----); convert with"
                    + " `openssl pkcs8 -topk8 -nocrypt -in KEY -out KEY.pk8`");
        }
        byte[] der = Base64.getMimeDecoder().decode(m.group(1));
        GeneralSecurityException last = null;
        for (String algorithm : new String[] {"EC", "RSA"}) {
            try {
                return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
            } catch (GeneralSecurityException e) {
                last = e;
            }
        }
        throw new GeneralSecurityException(file + ": neither an EC nor an RSA key", last);
    }

    // The key must be the certificate's: a mismatch would otherwise show only
    // as every handshake failing. Sign a few bytes and verify with the cert.
    private static void checkPair(PrivateKey key, PublicKey certKey, Path certFile, Path keyFile)
            throws GeneralSecurityException {
        String algorithm = key.getAlgorithm().equals("EC") ? "SHA256withECDSA" : "SHA256withRSA";
        byte[] probe = "soapbench".getBytes(StandardCharsets.US_ASCII);
        boolean matches = false;
        if (key.getAlgorithm().equals(certKey.getAlgorithm())) {
            Signature signer = Signature.getInstance(algorithm);
            signer.initSign(key);
            signer.update(probe);
            byte[] signature = signer.sign();
            Signature verifier = Signature.getInstance(algorithm);
            verifier.initVerify(certKey);
            verifier.update(probe);
            matches = verifier.verify(signature);
        }
        if (!matches) {
            throw new GeneralSecurityException(keyFile + " is not the key of " + certFile);
        }
    }

    private PemKeys() {
    }
}

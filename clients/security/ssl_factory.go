package security

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"strings"

	"software.sslmate.com/src/go-pkcs12"
)

// SslConfig is what a broker's SSL listener reads of the ssl.* keys.
//
// Kafka 0.10.2: the SslConfigs keys as SslFactory.configure reads them.
type SslConfig struct {
	KeystoreType, KeystoreLocation, KeystorePassword, KeyPassword string
	TruststoreType, TruststoreLocation, TruststorePassword        string
	ClientAuth                                                    string // ssl.client.auth: none, requested, required
	EnabledProtocols                                              []string
	CipherSuites                                                  []string
}

// JksConversionHint is the command that turns a JKS keystore into the PKCS12 one zkafka reads.
func JksConversionHint(location string) string {
	if location == "" {
		location = "keystore.jks"
	}
	dest := strings.TrimSuffix(location, ".jks") + ".p12"
	return fmt.Sprintf("keytool -importkeystore -srckeystore %s -destkeystore %s -deststoretype PKCS12", location, dest)
}

// CheckStoreType refuses a store type zkafka cannot read: PKCS12 (Kafka's keystores, read with
// go-pkcs12) and PEM (a zkafka extension) are supported; JKS, a Java-only format, is answered
// with the keytool command that converts it.
func CheckStoreType(prop, storeType, location string) error {
	switch strings.ToUpper(storeType) {
	case "PKCS12", "PEM":
		return nil
	case "JKS":
		return fmt.Errorf("%s JKS is not supported by zkafka: convert the store to PKCS12 with `%s` and set %s=PKCS12",
			prop, JksConversionHint(location), prop)
	}
	return fmt.Errorf("%s %s is not supported by zkafka (PKCS12 or PEM)", prop, storeType)
}

var tlsVersions = map[string]uint16{"TLSv1": tls.VersionTLS10, "TLSv1.1": tls.VersionTLS11, "TLSv1.2": tls.VersionTLS12, "TLSv1.3": tls.VersionTLS13}

// NewServerTLSConfig builds the tls.Config of an SSL or SASL_SSL listener: the certificate chain
// and key of the keystore, the client CAs of the truststore when ssl.client.auth asks for client
// certificates, the enabled protocols and cipher suites.
//
// Kafka 0.10.2: SslFactory.createSSLContext and createSslEngine in server mode.
func NewServerTLSConfig(c SslConfig) (*tls.Config, error) {
	if c.KeystoreLocation == "" {
		return nil, errors.New("SSL key store is not specified: ssl.keystore.location is required for SSL listeners")
	}
	if err := CheckStoreType("ssl.keystore.type", c.KeystoreType, c.KeystoreLocation); err != nil {
		return nil, err
	}
	cert, err := loadKeystore(c)
	if err != nil {
		return nil, err
	}
	cfg := &tls.Config{Certificates: []tls.Certificate{cert}}
	switch c.ClientAuth {
	case "", "none":
		cfg.ClientAuth = tls.NoClientCert
	case "requested":
		cfg.ClientAuth = tls.VerifyClientCertIfGiven
	case "required":
		cfg.ClientAuth = tls.RequireAndVerifyClientCert
	default:
		return nil, fmt.Errorf("Invalid value %s for configuration ssl.client.auth", c.ClientAuth)
	}
	if cfg.ClientAuth != tls.NoClientCert {
		if c.TruststoreLocation == "" {
			return nil, fmt.Errorf("ssl.truststore.location is required when ssl.client.auth is %s", c.ClientAuth)
		}
		if err := CheckStoreType("ssl.truststore.type", c.TruststoreType, c.TruststoreLocation); err != nil {
			return nil, err
		}
		if cfg.ClientCAs, err = loadTruststore(c); err != nil {
			return nil, err
		}
	}
	if len(c.EnabledProtocols) > 0 {
		for _, p := range c.EnabledProtocols {
			v, ok := tlsVersions[strings.TrimSpace(p)]
			if !ok {
				return nil, fmt.Errorf("Invalid value %s in ssl.enabled.protocols (TLSv1, TLSv1.1, TLSv1.2, TLSv1.3)", p)
			}
			if cfg.MinVersion == 0 || v < cfg.MinVersion {
				cfg.MinVersion = v
			}
			if v > cfg.MaxVersion {
				cfg.MaxVersion = v
			}
		}
	}
	if len(c.CipherSuites) > 0 {
		byName := map[string]uint16{}
		for _, s := range append(tls.CipherSuites(), tls.InsecureCipherSuites()...) {
			byName[s.Name] = s.ID
		}
		for _, n := range c.CipherSuites {
			id, ok := byName[strings.TrimSpace(n)]
			if !ok {
				return nil, fmt.Errorf("Invalid value %s in ssl.cipher.suites: not a cipher suite Go's crypto/tls implements", n)
			}
			cfg.CipherSuites = append(cfg.CipherSuites, id)
		}
	}
	return cfg, nil
}

func loadKeystore(c SslConfig) (tls.Certificate, error) {
	data, err := os.ReadFile(c.KeystoreLocation)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("Failed to load SSL keystore %s of type %s: %w", c.KeystoreLocation, c.KeystoreType, err)
	}
	if strings.EqualFold(c.KeystoreType, "PEM") {
		cert, err := tls.X509KeyPair(data, data)
		if err != nil {
			return tls.Certificate{}, fmt.Errorf("Failed to load SSL keystore %s of type PEM: %w", c.KeystoreLocation, err)
		}
		return cert, nil
	}
	key, leaf, chain, err := pkcs12.DecodeChain(data, c.KeystorePassword)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("Failed to load SSL keystore %s of type PKCS12: %w", c.KeystoreLocation, err)
	}
	cert := tls.Certificate{PrivateKey: key, Leaf: leaf, Certificate: [][]byte{leaf.Raw}}
	for _, ca := range chain {
		cert.Certificate = append(cert.Certificate, ca.Raw)
	}
	return cert, nil
}

func loadTruststore(c SslConfig) (*x509.CertPool, error) {
	data, err := os.ReadFile(c.TruststoreLocation)
	if err != nil {
		return nil, fmt.Errorf("Failed to load SSL truststore %s of type %s: %w", c.TruststoreLocation, c.TruststoreType, err)
	}
	pool := x509.NewCertPool()
	if strings.EqualFold(c.TruststoreType, "PEM") {
		if !pool.AppendCertsFromPEM(data) {
			return nil, fmt.Errorf("Failed to load SSL truststore %s of type PEM: no certificate", c.TruststoreLocation)
		}
		return pool, nil
	}
	certs, err := pkcs12.DecodeTrustStore(data, c.TruststorePassword)
	if err != nil {
		// A store holding a key entry (not a keytool -importcert truststore): take its certificates.
		blocks, perr := pkcs12.ToPEM(data, c.TruststorePassword)
		if perr != nil {
			return nil, fmt.Errorf("Failed to load SSL truststore %s of type PKCS12: %w", c.TruststoreLocation, err)
		}
		for _, b := range blocks {
			if b.Type == "CERTIFICATE" {
				pool.AppendCertsFromPEM(pem.EncodeToMemory(b))
			}
		}
		return pool, nil
	}
	for _, cert := range certs {
		pool.AddCert(cert)
	}
	return pool, nil
}

// SslPrincipal is the principal of a TLS connection: User:<the client certificate's subject DN>,
// or User:ANONYMOUS without a client certificate.
//
// Kafka 0.10.2: DefaultPrincipalBuilder over SslTransportLayer.peerPrincipal.
func SslPrincipal(state tls.ConnectionState) string {
	if len(state.PeerCertificates) == 0 {
		return "User:ANONYMOUS"
	}
	return "User:" + state.PeerCertificates[0].Subject.String()
}

package server

import (
	"crypto/tls"
	"fmt"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/security"
	"github.com/zkafka/zkafka/core/security/auth"
)

// saslAuthenticator builds what the SASL_PLAINTEXT listeners authenticate with: the JAAS file's
// KafkaServer section (PLAIN's user_<name> options) and the SCRAM credential cache, filled from
// /config/users by the DynamicConfigManager. Without a SASL listener it returns nils.
//
// The JAAS file is zkafka.jaas.config.file, else -Djava.security.auth.login.config=FILE in
// KAFKA_OPTS, as Kafka's scripts hand it to the JVM.
//
// Kafka 0.10.2: KafkaServer.startup's CredentialProvider and SocketServer's SaslChannelBuilder
// (LoginManager over JaasUtils).
func (s *KafkaServer) saslAuthenticator() (*security.SaslServerAuthenticator, *security.CredentialCache, error) {
	if !s.config.HasSaslListener() {
		return nil, nil, nil
	}
	file := ""
	if s.config.JaasConfigFile != nil {
		file = *s.config.JaasConfigFile
	} else {
		file = security.JaasFileFromOpts(s.getenv("KAFKA_OPTS"))
	}
	if file == "" {
		return nil, nil, fmt.Errorf("Could not find a '%s' entry in the JAAS configuration. System property '%s' is not set",
			security.JaasServerContext, security.JaasLoginConfigProp)
	}
	jaas, err := security.LoadJaasConfig(file)
	if err != nil {
		return nil, nil, err
	}
	if len(jaas[security.JaasServerContext]) == 0 {
		return nil, nil, fmt.Errorf("Could not find a '%s' entry in the JAAS configuration. System property '%s' is %s",
			security.JaasServerContext, security.JaasLoginConfigProp, file)
	}
	creds := security.NewCredentialCache(s.config.SaslEnabledMechanisms)
	return &security.SaslServerAuthenticator{
		EnabledMechanisms: s.config.SaslEnabledMechanisms, Jaas: jaas, Credentials: creds,
		MaxReceiveSize: s.config.SocketRequestMaxBytes,
	}, creds, nil
}

// zkLoginOpts is KAFKA_OPTS with zkafka.jaas.config.file, when set, taking the place of
// -Djava.security.auth.login.config: where the ZooKeeper login finds its JAAS file.
func (s *KafkaServer) zkLoginOpts() string {
	opts := s.getenv("KAFKA_OPTS")
	if s.config.JaasConfigFile != nil && *s.config.JaasConfigFile != "" {
		opts = "-D" + security.JaasLoginConfigProp + "=" + *s.config.JaasConfigFile + " " + opts
	}
	return opts
}

// startAuthorizer builds the authorizer.class.name authorizer: SimpleAclAuthorizer on the
// broker's ZooKeeper connection, configured from the broker's original properties (super.users,
// allow.everyone.if.no.acl.found); nil when the key is empty. KafkaConfig refuses other classes.
//
// Kafka 0.10.2: KafkaServer.startup's authorizer (CoreUtils.createObject + configure).
func (s *KafkaServer) startAuthorizer() (auth.Authorizer, error) {
	if s.config.AuthorizerClassName == "" {
		return nil, nil
	}
	audit := s.loggers.Authorizer
	if audit == nil {
		audit = s.loggers.Server.WithField("logger", "kafka.authorizer.logger")
	}
	a, err := auth.NewSimpleAclAuthorizer(s.zkUtils, s.config.Originals(), s.loggers.Server, audit)
	if err != nil {
		return nil, err // not a typed nil in the interface
	}
	return a, nil
}

// sslServerConfig builds the tls.Config of the SSL and SASL_SSL listeners from the ssl.* keys;
// nil without such a listener.
//
// Kafka 0.10.2: SslChannelBuilder's SslFactory in server mode.
func (s *KafkaServer) sslServerConfig() (*tls.Config, error) {
	c := s.config
	if !c.HasSslListener() {
		return nil, nil
	}
	return security.NewServerTLSConfig(s.sslConfig())
}

// sslConfig gathers the ssl.* keys.
func (s *KafkaServer) sslConfig() security.SslConfig {
	c := s.config
	str := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	sc := security.SslConfig{
		KeystoreType: c.SslKeystoreType, KeystoreLocation: str(c.SslKeystoreLocation),
		TruststoreType: c.SslTruststoreType, TruststoreLocation: str(c.SslTruststoreLocation),
		ClientAuth: c.SslClientAuth, EnabledProtocols: c.SslEnabledProtocols, CipherSuites: c.SslCipherSuites,
	}
	if c.SslKeystorePassword != nil {
		sc.KeystorePassword = c.SslKeystorePassword.Value()
	}
	if c.SslKeyPassword != nil {
		sc.KeyPassword = c.SslKeyPassword.Value()
	}
	if c.SslTruststorePassword != nil {
		sc.TruststorePassword = c.SslTruststorePassword.Value()
	}
	return sc
}

// interBrokerSecurity is how this broker's own connections to other brokers (replica fetchers,
// the controller's channels, the controlled shutdown request) authenticate on the inter-broker
// listener: TLS with the truststore for SSL and SASL_SSL, SASL with
// sasl.mechanism.inter.broker.protocol and the username/password options of the JAAS file's
// KafkaServer section (those of the mechanism's login module first). nil for PLAINTEXT.
//
// Kafka 0.10.2: ChannelBuilders.clientChannelBuilder for the inter-broker listener, with the
// LoginManager of the KafkaServer context.
func (s *KafkaServer) interBrokerSecurity(sasl *security.SaslServerAuthenticator) (*security.InterBrokerSecurity, error) {
	c := s.config
	proto := c.InterBrokerSecurityProtocol
	if proto == common.PLAINTEXT {
		return nil, nil
	}
	ib := &security.InterBrokerSecurity{Protocol: proto, Mechanism: c.SaslMechanismInterBrokerProtocol}
	if proto == common.SSL || proto == common.SASL_SSL {
		sc := s.sslConfig()
		tc, err := security.ClientTLSConfig(sc)
		if err != nil {
			return nil, err
		}
		ib.TLS = tc
	}
	if proto == common.SASL_PLAINTEXT || proto == common.SASL_SSL {
		if sasl == nil {
			return nil, fmt.Errorf("No SASL listener for security.inter.broker.protocol %s", proto)
		}
		module := security.PlainLoginModule
		if ib.Mechanism != security.PlainMechanism {
			module = security.ScramLoginModule
		}
		user, ok := sasl.Jaas.ConfigEntryOption(security.JaasServerContext, "username", module)
		if !ok {
			user, ok = sasl.Jaas.ConfigEntryOption(security.JaasServerContext, "username", "")
		}
		pass, _ := sasl.Jaas.ConfigEntryOption(security.JaasServerContext, "password", module)
		if p2, ok2 := sasl.Jaas.ConfigEntryOption(security.JaasServerContext, "password", ""); pass == "" && ok2 {
			pass = p2
		}
		if !ok {
			return nil, fmt.Errorf("the JAAS file's %s section has no username for SASL between brokers (%s)", security.JaasServerContext, ib.Mechanism)
		}
		ib.Username, ib.Password = user, pass
	}
	return ib, nil
}

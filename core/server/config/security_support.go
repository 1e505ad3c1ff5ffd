package config

import (
	"strings"

	"github.com/zkafka/zkafka/clients/common"
)

// SimpleAclAuthorizerClassName is the one authorizer.class.name zkafka builds.
const SimpleAclAuthorizerClassName = "kafka.security.auth.SimpleAclAuthorizer"

// zkafkaSaslMechanisms are the SASL mechanisms zkafka's broker serves (GSSAPI is not built).
var zkafkaSaslMechanisms = []string{"PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"}

// HasSaslListener tells whether a listener speaks SASL_PLAINTEXT (or SASL_SSL).
func (c *KafkaConfig) HasSaslListener() bool {
	for _, ep := range c.Listeners {
		if ep.SecurityProtocol == common.SASL_PLAINTEXT || ep.SecurityProtocol == common.SASL_SSL {
			return true
		}
	}
	return false
}

// HasSslListener tells whether a listener speaks SSL or SASL_SSL.
func (c *KafkaConfig) HasSslListener() bool {
	for _, ep := range c.Listeners {
		if ep.SecurityProtocol == common.SSL || ep.SecurityProtocol == common.SASL_SSL {
			return true
		}
	}
	return false
}

// checkStoreType accepts PKCS12 and PEM (a zkafka extension) and answers JKS, a Java-only
// format, with the keytool command that converts it.
func checkStoreType(prop, storeType, location string) error {
	switch strings.ToUpper(storeType) {
	case "PKCS12", "PEM":
		return nil
	case "JKS":
		dest := strings.TrimSuffix(location, ".jks") + ".p12"
		return configException("%s JKS is not supported by zkafka: convert the store to PKCS12 with `keytool -importkeystore -srckeystore %s -destkeystore %s -deststoretype PKCS12` and set %s=PKCS12",
			prop, location, dest, prop)
	}
	return configException("%s %s is not supported by zkafka (PKCS12, or PEM as a zkafka extension)", prop, storeType)
}

// validateSupported refuses, with a plain message, the security settings zkafka does not build
// (docs/deviations.md), so none of them is accepted and silently ignored.
func (c *KafkaConfig) validateSupported() error {
	if c.HasSslListener() {
		loc := ""
		if c.SslKeystoreLocation != nil {
			loc = *c.SslKeystoreLocation
		}
		if loc == "" {
			return configException("ssl.keystore.location is required for SSL listeners")
		}
		if err := checkStoreType("ssl.keystore.type", c.SslKeystoreType, loc); err != nil {
			return err
		}
		if c.SslClientAuth != "none" {
			tl := ""
			if c.SslTruststoreLocation != nil {
				tl = *c.SslTruststoreLocation
			}
			if tl == "" {
				return configException("ssl.truststore.location is required when ssl.client.auth is %s", c.SslClientAuth)
			}
			if err := checkStoreType("ssl.truststore.type", c.SslTruststoreType, tl); err != nil {
				return err
			}
		}
	}
	if c.HasSaslListener() {
		for _, m := range c.SaslEnabledMechanisms {
			if !contains(zkafkaSaslMechanisms, m) {
				return configException("SASL mechanism %s in sasl.enabled.mechanisms is not supported by zkafka (supported: %s)", m, strings.Join(zkafkaSaslMechanisms, ", "))
			}
		}
		if len(c.SaslEnabledMechanisms) == 0 {
			return configException("sasl.enabled.mechanisms is empty but listener uses SASL")
		}
	}
	if (c.InterBrokerSecurityProtocol == common.SSL || c.InterBrokerSecurityProtocol == common.SASL_SSL) &&
		(c.SslTruststoreLocation == nil || *c.SslTruststoreLocation == "") {
		return configException("ssl.truststore.location is required when %s is %s", interBrokerKey(c), c.InterBrokerSecurityProtocol)
	}
	if c.PrincipalBuilderClass != "org.apache.kafka.common.security.auth.DefaultPrincipalBuilder" {
		return configException("principal.builder.class %s is not supported by zkafka: the principal is DefaultPrincipalBuilder's", c.PrincipalBuilderClass)
	}
	if c.AuthorizerClassName != "" && c.AuthorizerClassName != SimpleAclAuthorizerClassName {
		return configException("authorizer.class.name %s is not supported by zkafka: the only authorizer is %s", c.AuthorizerClassName, SimpleAclAuthorizerClassName)
	}
	return nil
}

func interBrokerKey(c *KafkaConfig) string {
	if _, ok := c.Originals()["inter.broker.listener.name"]; ok {
		return "inter.broker.listener.name"
	}
	return "security.inter.broker.protocol"
}

// Package security is the broker side of SASL authentication: the SaslHandshake exchange and the
// size-prefixed token exchange that follows it (SaslServerAuthenticator), the PLAIN mechanism
// (PlainSaslServer, users from the JAAS file's KafkaServer section), the SCRAM-SHA-256 and
// SCRAM-SHA-512 mechanisms of KIP-84 (ScramSaslServer, credentials from ZooKeeper's
// /config/users/<user> kept in a CredentialCache), and the JAAS file parser (JaasConfig).
//
// GSSAPI (Kerberos) is not built: a listener enabling it is refused at startup.
//
// Kafka 0.10.2: org.apache.kafka.common.security.{authenticator,plain,scram} and JaasUtils.
package security

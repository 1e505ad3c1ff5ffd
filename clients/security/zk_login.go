package security

import (
	"fmt"
	"strings"
)

// ZooKeeper client login settings, as the ZooKeeper client reads them from Java system
// properties (here from -D settings in KAFKA_OPTS).
const (
	// ZkSaslClient is JaasUtils.ZK_SASL_CLIENT: "false" turns the ZooKeeper login off.
	ZkSaslClient = "zookeeper.sasl.client"
	// ZkLoginContextNameKey is JaasUtils.ZK_LOGIN_CONTEXT_NAME_KEY: the JAAS section the
	// ZooKeeper client logs in with (default JaasZkClientContext).
	ZkLoginContextNameKey = "zookeeper.sasl.clientconfig"
	// JaasZkClientContext is the default ZooKeeper login section, "Client".
	JaasZkClientContext = "Client"
	// DigestLoginModule is ZooKeeper's username/password login module, the one zkafka's
	// ZooKeeper login understands.
	DigestLoginModule = "org.apache.zookeeper.server.auth.DigestLoginModule"
)

// ZkLogin is how a process authenticates its ZooKeeper sessions.
type ZkLogin struct {
	// Enabled is JaasUtils.isZkSecurityEnabled: the JAAS file has the ZooKeeper login section.
	// Kafka's tools then create znodes with secure ACLs.
	Enabled bool
	// DigestAuth is "username:password" for ZooKeeper's digest scheme (addAuthInfo("digest",
	// ...)), from the section's DigestLoginModule entry; "" when not Enabled.
	DigestAuth string
}

// SystemPropertyFromOpts finds -Dname=value in a KAFKA_OPTS value.
func SystemPropertyFromOpts(opts, name string) (string, bool) {
	prefix := "-D" + name + "="
	for _, f := range strings.Fields(opts) {
		if strings.HasPrefix(f, prefix) {
			return strings.Trim(strings.TrimPrefix(f, prefix), `"'`), true
		}
	}
	return "", false
}

// ZkLoginFromOpts is JaasUtils.isZkSecurityEnabled over the JAAS file named in KAFKA_OPTS
// (-Djava.security.auth.login.config), honouring -Dzookeeper.sasl.clientconfig and
// -Dzookeeper.sasl.client, plus the credentials the session authenticates with.
//
// Differences from 0.10.2: the ZooKeeper client there logs in with SASL (DIGEST-MD5 or
// Kerberos); go-zookeeper has no SASL client, so the section's DigestLoginModule
// username/password is sent with the digest scheme instead, and a section without such an
// entry (Krb5LoginModule) is refused.
func ZkLoginFromOpts(kafkaOpts string) (ZkLogin, error) {
	file := JaasFileFromOpts(kafkaOpts)
	if file == "" {
		return ZkLogin{}, nil
	}
	context := JaasZkClientContext
	if v, ok := SystemPropertyFromOpts(kafkaOpts, ZkLoginContextNameKey); ok {
		context = v
	}
	jaas, err := LoadJaasConfig(file)
	if err != nil {
		return ZkLogin{}, fmt.Errorf("Exception while loading Zookeeper JAAS login context '%s': %w", context, err)
	}
	entries := jaas[context]
	if len(entries) == 0 {
		return ZkLogin{}, nil
	}
	if v, ok := SystemPropertyFromOpts(kafkaOpts, ZkSaslClient); ok && strings.EqualFold(v, "false") {
		return ZkLogin{}, fmt.Errorf("Exception while determining if ZooKeeper is secure: JAAS configuration is present, but system property %s is set to false, which disables SASL in the ZooKeeper client", ZkSaslClient)
	}
	for _, e := range entries {
		if e.LoginModuleName != DigestLoginModule {
			continue
		}
		user, pw := e.Options["username"], e.Options["password"]
		if user == "" {
			return ZkLogin{}, fmt.Errorf("the '%s' section of %s has no username for %s", context, file, DigestLoginModule)
		}
		return ZkLogin{Enabled: true, DigestAuth: user + ":" + pw}, nil
	}
	return ZkLogin{}, fmt.Errorf("the '%s' section of %s has no %s entry: zkafka logs in to ZooKeeper with the digest scheme only (see docs/deviations.md)", context, file, DigestLoginModule)
}

package security

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeJaas(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "jaas.conf")
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestZkLoginFromOpts(t *testing.T) {
	digest := writeJaas(t, `Client {
  org.apache.zookeeper.server.auth.DigestLoginModule required username="kafka" password="kafka-secret";
};
ZkOther { org.apache.zookeeper.server.auth.DigestLoginModule required username="other" password="pw"; };`)
	noClient := writeJaas(t, `KafkaServer { org.apache.kafka.common.security.plain.PlainLoginModule required username="a" password="b"; };`)
	krb := writeJaas(t, `Client { com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true; };`)
	opt := "-D" + JaasLoginConfigProp + "="
	cases := []struct {
		name, opts, auth, err string
	}{
		{"no JAAS file", "-Xmx1G", "", ""},
		{"Client section", "-Xmx1G " + opt + digest, "kafka:kafka-secret", ""},
		{"other context", opt + digest + " -Dzookeeper.sasl.clientconfig=ZkOther", "other:pw", ""},
		{"no Client section", opt + noClient, "", ""},
		{"sasl client off", opt + digest + " -Dzookeeper.sasl.client=false", "", "Exception while determining if ZooKeeper is secure"},
		{"Kerberos only", opt + krb, "", "has no org.apache.zookeeper.server.auth.DigestLoginModule entry"},
		{"missing file", opt + "/nonexistent/jaas.conf", "", "Exception while loading Zookeeper JAAS login context 'Client'"},
	}
	for _, c := range cases {
		login, err := ZkLoginFromOpts(c.opts)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: err %v, want %q", c.name, err, c.err)
			}
			continue
		}
		if err != nil || login.Enabled != (c.auth != "") || login.DigestAuth != c.auth {
			t.Errorf("%s: %+v %v, want auth %q", c.name, login, err, c.auth)
		}
	}
}

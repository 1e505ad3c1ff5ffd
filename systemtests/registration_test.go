package systemtests

import (
	"fmt"
	"net"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/zkafka/zkafka/zk/zkutils"
)

// A broker registers /brokers/ids/<id> as an ephemeral znode holding Kafka 0.10.2's JSON byte
// for byte (KafkaHealthcheck.register → Broker's version 4 JSON): the member order of the Scala
// map, timestamp as a string, jmx_port -1 without JMX_PORT, and the port the listener is bound to,
// also when the configured port is 0.
func TestBrokerRegistrationJSON(t *testing.T) {
	before := time.Now().UnixMilli()
	c := newCluster(t, ClusterConfig{Brokers: 1, FirstID: 3})
	b := c.Brokers[0]
	z, err := c.Zk()
	if err != nil {
		t.Fatal(err)
	}
	data, st, err := z.ReadData(c.Path(zkutils.BrokerIdPath(3)))
	if err != nil {
		t.Fatal(err)
	}
	want := regexp.MustCompile(fmt.Sprintf(`^\{"listener_security_protocol_map":\{"PLAINTEXT":"PLAINTEXT"\},"endpoints":\["PLAINTEXT://127\.0\.0\.1:%d"\],"jmx_port":-1,"host":"127\.0\.0\.1","timestamp":"([0-9]+)","port":%d,"version":4\}$`, b.Port, b.Port))
	m := want.FindSubmatch(data)
	if m == nil {
		t.Fatalf("/brokers/ids/3 = %s\nwant the 0.10.2 layout %s", data, want)
	}
	ts, _ := strconv.ParseInt(string(m[1]), 10, 64)
	if ts < before-1000 || ts > time.Now().UnixMilli()+1000 {
		t.Errorf("timestamp %d is not the registration time (test started at %d)", ts, before)
	}
	if st.EphemeralOwner == 0 {
		t.Errorf("/brokers/ids/3 is not ephemeral")
	}

	t.Run("bound port replaces port 0", func(t *testing.T) {
		c2 := newCluster(t, ClusterConfig{Brokers: 1, Properties: map[string]string{"listeners": "PLAINTEXT://127.0.0.1:0"}})
		z, err := c2.Zk()
		if err != nil {
			t.Fatal(err)
		}
		data, _, err := z.ReadData(c2.Path(zkutils.BrokerIdPath(0)))
		if err != nil {
			t.Fatal(err)
		}
		bi, err := zkutils.DecodeBrokerInfo(0, data)
		if err != nil {
			t.Fatalf("%s: %v", data, err)
		}
		if bi.Port <= 0 || len(bi.EndPoints) != 1 || bi.EndPoints[0].Port != bi.Port {
			t.Fatalf("registration %s does not carry the bound port", data)
		}
		nc, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", bi.Port), 5*time.Second)
		if err != nil {
			t.Fatalf("registered port %d does not accept connections: %v", bi.Port, err)
		}
		nc.Close()
	})

	t.Run("JMX_PORT is jmx_port", func(t *testing.T) {
		jmx, err := FreePort()
		if err != nil {
			t.Fatal(err)
		}
		c3 := newCluster(t, ClusterConfig{Brokers: 1, Env: []string{fmt.Sprintf("JMX_PORT=%d", jmx)}})
		z, err := c3.Zk()
		if err != nil {
			t.Fatal(err)
		}
		data, _, err := z.ReadData(c3.Path(zkutils.BrokerIdPath(0)))
		if err != nil {
			t.Fatal(err)
		}
		if !regexp.MustCompile(fmt.Sprintf(`,"jmx_port":%d,`, jmx)).Match(data) {
			t.Fatalf("registration %s does not carry JMX_PORT %d", data, jmx)
		}
	})
}

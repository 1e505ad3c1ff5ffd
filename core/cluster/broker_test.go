package cluster

import (
	"testing"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/zk/zkutils"
)

func TestBrokerFromRegistration(t *testing.T) {
	info := zkutils.NewBrokerInfo(3, 4, []zkutils.RegisteredEndPoint{
		{ListenerName: "SSL", SecurityProtocol: common.SSL, Host: "h", Port: 9093},
		{ListenerName: "PLAINTEXT", SecurityProtocol: common.PLAINTEXT, Host: "h", Port: 9092},
	}, -1, "r1", 0)
	b := NewBroker(info)
	if b.ID != 3 || b.Rack == nil || *b.Rack != "r1" || len(b.EndPoints) != 2 {
		t.Fatalf("%+v", b)
	}
	ep, err := b.GetBrokerEndPoint("SSL")
	if err != nil || ep.Port != 9093 || ep.ConnectionString() != "h:9093" {
		t.Fatalf("%v %v", ep, err)
	}
	if _, err := b.GetBrokerEndPoint("SASL_SSL"); err == nil {
		t.Fatal("missing listener found")
	}
	if got := b.String(); got != "3 : (PLAINTEXT://h:9092,SSL://h:9093) : r1" {
		t.Fatalf("String() = %q", got)
	}
	if NewBroker(zkutils.NewBrokerInfo(1, 4, nil, -1, "", 0)).Rack != nil {
		t.Fatal("empty rack should be nil")
	}
}

package commandline

import (
	"bytes"
	"strings"
	"testing"
)

func perfParser() *ArgumentParser {
	p := NewArgumentParser("producer-performance", "This tool is used to verify the producer performance.")
	p.AddArgument("--topic").Required().Metavar("TOPIC").Help("produce messages to this topic")
	p.AddArgument("--num-records").Required().Type("Long").Metavar("NUM-RECORDS").Dest("numRecords")
	g := p.AddMutuallyExclusiveGroup().Required()
	g.AddArgument("--record-size").Type("Integer").Metavar("RECORD-SIZE").Dest("recordSize")
	g.AddArgument("--payload-file").Metavar("PAYLOAD-FILE").Dest("payloadFile")
	p.AddArgument("--producer-props").OneOrMore().Metavar("PROP-NAME=PROP-VALUE").Dest("producerConfig")
	p.AddArgument("--acks").Type("Integer").Default("-1").Choices("0", "1", "-1")
	p.AddArgument("--print-metrics").StoreTrue().Dest("printMetrics")
	return p
}

func TestArgumentParser(t *testing.T) {
	p := perfParser()
	ns, err := p.Parse([]string{"--topic", "t", "--num-records=10", "--record-size", "100", "--producer-props", "a=1", "b=2", "--print-metrics"})
	if err != nil {
		t.Fatal(err)
	}
	if ns.String("topic") != "t" || ns.Long("numRecords") != 10 || ns.Int("recordSize") != 100 || ns.Has("payloadFile") ||
		strings.Join(ns.List("producerConfig"), ",") != "a=1,b=2" || !ns.Bool("printMetrics") || ns.Int("acks") != -1 {
		t.Fatalf("%+v", ns.values)
	}
	errs := map[string][]string{
		"argument --topic is required":                                                    {"--num-records", "1", "--record-size", "1"},
		"one of the arguments --record-size --payload-file is required":                   {"--topic", "t", "--num-records", "1"},
		"argument --payload-file: not allowed with argument --record-size":                {"--topic", "t", "--num-records", "1", "--record-size", "1", "--payload-file", "f"},
		"argument --num-records: could not convert 'x' to Long (For input string: \"x\")": {"--topic", "t", "--num-records", "x"},
		"unrecognized arguments: '--nope'":                                                {"--nope", "--topic", "t", "--num-records", "1", "--record-size", "1"},
		"argument --acks: invalid choice: '2' (choose from {0, 1, -1})":                   {"--acks", "2"},
		"argument --topic: expected one argument":                                         {"--topic"},
	}
	for want, args := range errs {
		if _, err := p.Parse(args); err == nil || err.Error() != want {
			t.Errorf("%v: %v, want %q", args, err, want)
		}
	}
	var out, errOut bytes.Buffer
	if _, code, ok := p.RunParse([]string{"--topic"}, &out, &errOut); ok || code != 1 ||
		!strings.HasPrefix(errOut.String(), "usage: producer-performance [-h] --topic TOPIC --num-records NUM-RECORDS (--record-size RECORD-SIZE | --payload-file PAYLOAD-FILE) [--producer-props PROP-NAME=PROP-VALUE [PROP-NAME=PROP-VALUE ...]]") ||
		!strings.HasSuffix(errOut.String(), "producer-performance: error: argument --topic: expected one argument\n") {
		t.Fatalf("error output %q", errOut.String())
	}
	out.Reset()
	if _, code, ok := p.RunParse(nil, &out, &errOut); ok || code != 0 || !strings.Contains(out.String(), "This tool is used to verify the producer performance.") {
		t.Fatalf("help: %d %q", code, out.String())
	}
}

package commandline

import (
	"regexp"
	"strings"
)

// hostPortPattern is Utils.getPort's pattern: anything, then ':' and digits.
var hostPortPattern = regexp.MustCompile(`^.*?\[?([0-9a-zA-Z\-%._:]*)\]?:([0-9]+)`)

// ValidatePortOrDie checks that every comma-separated entry of a broker list
// has a port, else it is the usage error Kafka prints.
//
// Kafka 0.10.2: kafka.utils.ToolsUtils.validatePortOrDie.
func ValidatePortOrDie(p *OptionParser, hostPort string) error {
	entries := strings.Split(hostPort, ",")
	for len(entries) > 0 && entries[len(entries)-1] == "" {
		entries = entries[:len(entries)-1]
	}
	valid := 0
	for _, e := range entries {
		if hostPortPattern.MatchString(e) {
			valid++
		}
	}
	if valid == 0 || valid != len(entries) {
		return PrintUsageAndDie(p, "Please provide valid host:port like host1:9091,host2:9092\n ")
	}
	return nil
}

package config

import (
	"testing"

	kconfig "github.com/zkafka/zkafka/clients/config"
)

// TestPropsHasAFieldPerKey: every key of the broker's ConfigDef has exactly one typed field in
// Props, of the Go type its ConfigDef type parses to.
func TestPropsHasAFieldPerKey(t *testing.T) {
	if err := kconfig.CheckFields(configDef(), Props{}); err != nil {
		t.Fatal(err)
	}
}

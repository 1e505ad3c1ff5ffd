package admin

// RackAwareMode says how replica assignment treats broker racks.
//
// Kafka 0.10.2: kafka.admin.RackAwareMode.
type RackAwareMode int

const (
	// RackAwareEnforced uses racks and fails when only some brokers have one
	// (the tools' default).
	RackAwareEnforced RackAwareMode = iota
	// RackAwareSafe uses racks only if every broker has one (auto topic creation).
	RackAwareSafe
	// RackAwareDisabled ignores racks (--disable-rack-aware).
	RackAwareDisabled
)

func (m RackAwareMode) String() string {
	switch m {
	case RackAwareEnforced:
		return "Enforced"
	case RackAwareSafe:
		return "Safe"
	case RackAwareDisabled:
		return "Disabled"
	}
	return "Unknown"
}

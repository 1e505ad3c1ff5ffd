package security

import "sync"

// CredentialCache holds the SCRAM credentials of every user, per mechanism, as the broker reads
// them from /config/users/<user> (at startup and on each config change notification).
//
// Kafka 0.10.2: org.apache.kafka.common.security.authenticator.CredentialCache (with
// kafka.security.CredentialProvider's update).
type CredentialCache struct {
	mu    sync.RWMutex
	creds map[string]map[string]ScramCredential // mechanism -> user -> credential
}

// NewCredentialCache creates a cache for the SCRAM mechanisms among enabledMechanisms
// (ScramCredentialUtils.createCache).
func NewCredentialCache(enabledMechanisms []string) *CredentialCache {
	c := &CredentialCache{creds: map[string]map[string]ScramCredential{}}
	for _, m := range enabledMechanisms {
		if _, ok := ScramMechanisms[m]; ok {
			c.creds[m] = map[string]ScramCredential{}
		}
	}
	return c
}

// Get is the credential of username for mechanism; false when there is none.
func (c *CredentialCache) Get(mechanism, username string) (ScramCredential, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	cr, ok := c.creds[mechanism][username]
	return cr, ok
}

// UpdateCredentials replaces username's credentials with those in its config (a property named
// after each enabled SCRAM mechanism); a mechanism absent from config removes the user's
// credential for it. A credential that does not parse is an error and leaves the user without it.
//
// Kafka 0.10.2: kafka.security.CredentialProvider.updateCredentials.
func (c *CredentialCache) UpdateCredentials(username string, config map[string]string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	var firstErr error
	for mech, users := range c.creds {
		v, ok := config[mech]
		if !ok {
			delete(users, username)
			continue
		}
		cr, err := ScramCredentialFromString(v)
		if err != nil {
			delete(users, username)
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		users[username] = cr
	}
	return firstErr
}

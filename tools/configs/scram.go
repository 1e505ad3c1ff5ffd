package configs

import (
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"fmt"
	"hash"
	"math/big"
	"regexp"
	"strconv"
)

// scramMinIterations is ScramMechanism.minIterations for both mechanisms.
const scramMinIterations = 4096

// DefaultScramIterations is ConfigCommand.DefaultScramIterations.
const DefaultScramIterations = 4096

var scramCredentialPattern = regexp.MustCompile(`^(?:iterations=([0-9]*),)?password=(.*)$`)

func scramHash(mechanism string) func() hash.Hash {
	if mechanism == "SCRAM-SHA-512" {
		return sha512.New
	}
	return sha256.New
}

// scramCredential turns "[iterations=n,]password=p" into the stored form
// salt=<b64>,stored_key=<b64>,server_key=<b64>,iterations=<n>.
//
// Kafka 0.10.2: ConfigCommand.preProcessScramCredentials with ScramFormatter
// and ScramCredentialUtils.credentialToString.
func scramCredential(mechanism, value string) (string, error) {
	m := scramCredentialPattern.FindStringSubmatch(value)
	if m == nil {
		return "", fmt.Errorf("Invalid credential property %s=%s", mechanism, value)
	}
	iterations := DefaultScramIterations
	if m[1] != "" {
		n, err := strconv.Atoi(m[1])
		if err != nil {
			return "", fmt.Errorf("For input string: \"%s\"", m[1])
		}
		iterations = n
	}
	if iterations < scramMinIterations {
		return "", fmt.Errorf("Iterations %d is less than the minimum %d required for %s", iterations, scramMinIterations, mechanism)
	}
	// The salt is a random 130-bit number written in base 36, as Kafka draws it.
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 130))
	if err != nil {
		return "", err
	}
	salt := []byte(n.Text(36))
	h := scramHash(mechanism)
	salted, err := pbkdf2.Key(h, m[2], salt, iterations, h().Size())
	if err != nil {
		return "", err
	}
	mac := func(key []byte, msg string) []byte {
		x := hmac.New(h, key)
		x.Write([]byte(msg))
		return x.Sum(nil)
	}
	clientKey := mac(salted, "Client Key")
	sum := h()
	sum.Write(clientKey)
	storedKey := sum.Sum(nil)
	serverKey := mac(salted, "Server Key")
	b64 := base64.StdEncoding.EncodeToString
	return fmt.Sprintf("salt=%s,stored_key=%s,server_key=%s,iterations=%d", b64(salt), b64(storedKey), b64(serverKey), iterations), nil
}

package security

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"hash"
	"math/big"
	"regexp"
	"strconv"
	"strings"
)

// ScramMechanism is one SCRAM mechanism: its name, hash and minimum iteration count.
//
// Kafka 0.10.2: org.apache.kafka.common.security.scram.ScramMechanism.
type ScramMechanism struct {
	Name          string
	Hash          func() hash.Hash
	MinIterations int
}

// ScramMechanisms are the mechanisms of KIP-84 by name.
var ScramMechanisms = map[string]ScramMechanism{
	"SCRAM-SHA-256": {Name: "SCRAM-SHA-256", Hash: sha256.New, MinIterations: 4096},
	"SCRAM-SHA-512": {Name: "SCRAM-SHA-512", Hash: sha512.New, MinIterations: 4096},
}

// ScramCredential is what the broker keeps of a SCRAM password: the salt, StoredKey, ServerKey
// and iteration count (RFC 5802 §3).
//
// Kafka 0.10.2: org.apache.kafka.common.security.scram.ScramCredential.
type ScramCredential struct {
	Salt       []byte
	StoredKey  []byte
	ServerKey  []byte
	Iterations int
}

// ScramCredentialFromString parses salt=<b64>,stored_key=<b64>,server_key=<b64>,iterations=<n>,
// the form kafka-configs writes to /config/users/<user>.
//
// Kafka 0.10.2: ScramCredentialUtils.credentialFromString.
func ScramCredentialFromString(s string) (ScramCredential, error) {
	invalid := fmt.Errorf("Credentials not valid: %s", s)
	props := map[string]string{}
	for _, tok := range strings.Split(s, ",") {
		i := strings.IndexByte(tok, '=')
		if i <= 0 {
			return ScramCredential{}, invalid
		}
		props[tok[:i]] = tok[i+1:]
	}
	if len(props) != 4 {
		return ScramCredential{}, invalid
	}
	var c ScramCredential
	var err error
	dec := func(k string) []byte {
		v, ok := props[k]
		if !ok && err == nil {
			err = invalid
		}
		b, derr := base64.StdEncoding.DecodeString(v)
		if derr != nil && err == nil {
			err = invalid
		}
		return b
	}
	c.Salt, c.StoredKey, c.ServerKey = dec("salt"), dec("stored_key"), dec("server_key")
	if err != nil {
		return ScramCredential{}, err
	}
	it, ok := props["iterations"]
	if !ok {
		return ScramCredential{}, invalid
	}
	if c.Iterations, err = strconv.Atoi(it); err != nil {
		return ScramCredential{}, fmt.Errorf("For input string: \"%s\"", it)
	}
	return c, nil
}

// scramFormatter holds one mechanism's primitives.
//
// Kafka 0.10.2: ScramFormatter.
type scramFormatter struct{ h func() hash.Hash }

func (f scramFormatter) hmac(key []byte, msg string) []byte {
	m := hmac.New(f.h, key)
	m.Write([]byte(msg))
	return m.Sum(nil)
}

func (f scramFormatter) hash(b []byte) []byte {
	d := f.h()
	d.Write(b)
	return d.Sum(nil)
}

// scramUsername turns a saslname back into the user name: =2C is ',' and =3D is '='; any other
// '=' is invalid (ScramFormatter.username).
func scramUsername(saslName string) (string, error) {
	u := strings.ReplaceAll(saslName, "=2C", ",")
	if strings.Contains(strings.ReplaceAll(u, "=3D", ""), "=") {
		return "", fmt.Errorf("Invalid username: %s", saslName)
	}
	return strings.ReplaceAll(u, "=3D", "="), nil
}

// secureRandomString is a random 130-bit number in base 36 (ScramFormatter.secureRandomString).
func secureRandomString() string {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 130))
	if err != nil {
		panic(err) // crypto/rand does not fail on supported platforms
	}
	return n.Text(36)
}

// The SCRAM message grammar of RFC 5802 as 0.10.2's ScramMessages reads it.
const (
	scramPrintable  = `[\x21-\x2b\x2d-\x7e]+`
	scramBase64     = `[A-Za-z0-9+/]*={0,2}`
	scramValueChars = `[\x01-\x2b\x2d-\x3c\x3e-\x7f]+`
	scramExtensions = `(?:,[A-Za-z]=` + scramValueChars + `)*`
)

var (
	// Go's regexp has no class intersection: the saslname is written out.
	clientFirstPattern = regexp.MustCompile(`^n,(?:a=((?:[\x01-\x2b\x2d-\x3c\x3e-\x7f]|=2C|=3D)+))?,(?:m=` + scramValueChars + `,)?n=((?:[\x01-\x2b\x2d-\x3c\x3e-\x7f]|=2C|=3D)+),r=(` + scramPrintable + `)(` + scramExtensions + `)$`)
	clientFinalPattern = regexp.MustCompile(`^(c=(` + scramBase64 + `),r=(` + scramPrintable + `)` + scramExtensions + `),p=(` + scramBase64 + `)$`)
)

// ScramSaslServer is the server side of SCRAM-SHA-256/512 (RFC 5802, RFC 7677): client-first,
// server-first (nonce, salt, iterations), client-final (proof), server-final (signature).
// Channel binding is not supported: the client-first message must start with "n,".
//
// Kafka 0.10.2: org.apache.kafka.common.security.scram.ScramSaslServer.
type ScramSaslServer struct {
	mechanism ScramMechanism
	f         scramFormatter
	cache     *CredentialCache
	state     int // 0 receive client-first, 1 receive client-final, 2 complete, 3 failed

	username        string
	cred            ScramCredential
	clientFirstBare string
	serverFirst     string
	nonce           string
}

// NewScramSaslServer is ScramSaslServerFactory.createSaslServer for mechanism.
func NewScramSaslServer(mechanism ScramMechanism, cache *CredentialCache) *ScramSaslServer {
	return &ScramSaslServer{mechanism: mechanism, f: scramFormatter{h: mechanism.Hash}, cache: cache}
}

// EvaluateResponse implements SaslServer.
func (s *ScramSaslServer) EvaluateResponse(response []byte) ([]byte, error) {
	out, err := s.evaluate(string(response))
	if err != nil {
		s.state = 3
		s.cred = ScramCredential{}
	}
	return out, err
}

func (s *ScramSaslServer) evaluate(msg string) ([]byte, error) {
	switch s.state {
	case 0:
		m := clientFirstPattern.FindStringSubmatch(msg)
		if m == nil {
			return nil, saslError("Invalid SCRAM client first message format: %s", msg)
		}
		authzid, saslName, clientNonce := m[1], m[2], m[3]
		username, err := scramUsername(saslName)
		if err != nil {
			return nil, saslError("Authentication failed: Credentials could not be obtained")
		}
		s.username = username
		cred, ok := s.cache.Get(s.mechanism.Name, username)
		if !ok {
			return nil, saslError("Authentication failed: Invalid user credentials")
		}
		if authzid != "" {
			if az, err := scramUsername(authzid); err != nil || az != username {
				return nil, saslError("Authentication failed: Client requested an authorization id that is different from username")
			}
		}
		if cred.Iterations < s.mechanism.MinIterations {
			return nil, saslError("Iterations %d is less than the minimum %d for %s", cred.Iterations, s.mechanism.MinIterations, s.mechanism.Name)
		}
		s.cred = cred
		s.clientFirstBare = msg[strings.Index(msg[2:], ",")+3:] // after the gs2 header "n,[a=authzid],"
		s.nonce = clientNonce + secureRandomString()
		s.serverFirst = "r=" + s.nonce + ",s=" + base64.StdEncoding.EncodeToString(cred.Salt) + ",i=" + strconv.Itoa(cred.Iterations)
		s.state = 1
		return []byte(s.serverFirst), nil
	case 1:
		m := clientFinalPattern.FindStringSubmatch(msg)
		if m == nil {
			return nil, saslError("Invalid SCRAM client final message format: %s", msg)
		}
		// As in 0.10.2, the nonce the client echoes is not compared with the server's: the proof
		// covers the message as sent (and the server-first message with the server's fresh
		// nonce), and librdkafka's SCRAM client of that era echoes client nonce + server nonce.
		withoutProof := m[1]
		proof, err := base64.StdEncoding.DecodeString(m[4])
		if err != nil {
			return nil, saslError("Authentication failed: Invalid client final message")
		}
		authMessage := s.clientFirstBare + "," + s.serverFirst + "," + withoutProof
		clientSignature := s.f.hmac(s.cred.StoredKey, authMessage)
		if len(proof) != len(clientSignature) {
			return nil, saslError("Invalid client credentials")
		}
		clientKey := make([]byte, len(proof))
		for i := range proof {
			clientKey[i] = proof[i] ^ clientSignature[i]
		}
		if subtle.ConstantTimeCompare(s.f.hash(clientKey), s.cred.StoredKey) != 1 {
			return nil, saslError("Invalid client credentials")
		}
		serverSignature := s.f.hmac(s.cred.ServerKey, authMessage)
		s.cred = ScramCredential{}
		s.state = 2
		return []byte("v=" + base64.StdEncoding.EncodeToString(serverSignature)), nil
	default:
		return nil, saslError("Unexpected challenge in Sasl server state %d", s.state)
	}
}

// IsComplete implements SaslServer.
func (s *ScramSaslServer) IsComplete() bool { return s.state == 2 }

// AuthorizationID implements SaslServer.
func (s *ScramSaslServer) AuthorizationID() string { return s.username }

// MechanismName implements SaslServer.
func (s *ScramSaslServer) MechanismName() string { return s.mechanism.Name }

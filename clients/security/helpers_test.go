package security

import (
	"crypto/pbkdf2"
	"encoding/base64"
	"strconv"
)

func saltedPassword(m ScramMechanism, password string, salt []byte, iterations int) []byte {
	k, err := pbkdf2.Key(m.Hash, password, salt, iterations, m.Hash().Size())
	if err != nil {
		panic(err)
	}
	return k
}

func encodeB64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

func itoa(n int) string { return strconv.Itoa(n) }

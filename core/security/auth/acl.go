package auth

import (
	"fmt"
	"sort"
	"strings"

	"github.com/zkafka/zkafka/zk/zkutils"
)

// Operation is what a principal does to a resource.
//
// Kafka 0.10.2: kafka.security.auth.Operation.
type Operation string

// The operations of 0.10.2.
const (
	Read          Operation = "Read"
	Write         Operation = "Write"
	Create        Operation = "Create"
	Delete        Operation = "Delete"
	Alter         Operation = "Alter"
	Describe      Operation = "Describe"
	ClusterAction Operation = "ClusterAction"
	All           Operation = "All"
)

// Operations lists every operation (Operation.values).
var Operations = []Operation{Read, Write, Create, Delete, Alter, Describe, ClusterAction, All}

// OperationFromString matches a name case-insensitively (Operation.fromString).
func OperationFromString(s string) (Operation, error) {
	for _, o := range Operations {
		if strings.EqualFold(string(o), s) {
			return o, nil
		}
	}
	names := make([]string, len(Operations))
	for i, o := range Operations {
		names[i] = string(o)
	}
	return "", fmt.Errorf("%s not a valid operation name. The valid names are %s", s, strings.Join(names, ","))
}

// PermissionType is Allow or Deny.
//
// Kafka 0.10.2: kafka.security.auth.PermissionType.
type PermissionType string

// The permission types.
const (
	Allow PermissionType = "Allow"
	Deny  PermissionType = "Deny"
)

// PermissionTypeFromString matches a name case-insensitively.
func PermissionTypeFromString(s string) (PermissionType, error) {
	for _, p := range []PermissionType{Allow, Deny} {
		if strings.EqualFold(string(p), s) {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s not a valid permissionType name. The valid names are Allow,Deny", s)
}

// WildCardPrincipal matches every principal; WildCardHost every host.
const (
	WildCardPrincipal = "User:*"
	WildCardHost      = "*"
)

// Acl lets (or forbids) a principal an operation from a host.
//
// Kafka 0.10.2: kafka.security.auth.Acl.
type Acl struct {
	Principal      string // "User:alice"
	PermissionType PermissionType
	Host           string
	Operation      Operation
}

// String is Kafka's "<principal> has <Allow|Deny> permission for operations: <op> from hosts: <host>".
func (a Acl) String() string {
	return fmt.Sprintf("%s has %s permission for operations: %s from hosts: %s", a.Principal, a.PermissionType, a.Operation, a.Host)
}

// AclsToZkData encodes a resource's ACLs as /kafka-acl/<type>/<name> holds them.
//
// Kafka 0.10.2: Json.encode(Acl.toJsonCompatibleMap(acls)).
func AclsToZkData(acls []Acl) []byte {
	e := make([]zkutils.AclEntry, len(acls))
	for i, a := range acls {
		e[i] = zkutils.AclEntry{Principal: a.Principal, PermissionType: string(a.PermissionType), Operation: string(a.Operation), Host: a.Host}
	}
	return zkutils.AclZkData(e)
}

// AclsFromZkData decodes a resource node (Acl.fromJson).
func AclsFromZkData(data []byte) ([]Acl, error) {
	entries, err := zkutils.ParseAcls(data)
	if err != nil {
		return nil, err
	}
	out := make([]Acl, 0, len(entries))
	for _, e := range entries {
		pt, err := PermissionTypeFromString(e.PermissionType)
		if err != nil {
			return nil, err
		}
		op, err := OperationFromString(e.Operation)
		if err != nil {
			return nil, err
		}
		out = append(out, Acl{Principal: e.Principal, PermissionType: pt, Host: e.Host, Operation: op})
	}
	return out, nil
}

// aclSet is a set of ACLs (Kafka's Set[Acl]); sorted for stable output.
type aclSet map[Acl]struct{}

func newAclSet(acls []Acl) aclSet {
	s := aclSet{}
	for _, a := range acls {
		s[a] = struct{}{}
	}
	return s
}

func (s aclSet) list() []Acl {
	out := make([]Acl, 0, len(s))
	for a := range s {
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}

func (s aclSet) equal(o aclSet) bool {
	if len(s) != len(o) {
		return false
	}
	for a := range s {
		if _, ok := o[a]; !ok {
			return false
		}
	}
	return true
}

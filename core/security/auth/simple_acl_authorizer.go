package auth

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/core/network"
	"github.com/zkafka/zkafka/zk/zkclient"
	"github.com/zkafka/zkafka/zk/zkutils"
)

// The configuration keys SimpleAclAuthorizer reads from the broker's properties (they are not
// KafkaConfig keys in 0.10.2 either: the authorizer gets the broker's original properties).
const (
	SuperUsersProp                   = "super.users"
	AllowEveryoneIfNoAclIsFoundProp  = "allow.everyone.if.no.acl.found"
	SimpleAclAuthorizerClassName     = "kafka.security.auth.SimpleAclAuthorizer"
	maxUpdateRetries                 = 10
	retryBackoff, retryBackoffJitter = 100 * time.Millisecond, 50 * time.Millisecond
)

// Authorizer decides whether a session may perform an operation on a resource, and manages the
// ACLs behind the decision.
//
// Kafka 0.10.2: kafka.security.auth.Authorizer.
type Authorizer interface {
	Authorize(session network.Session, operation Operation, resource Resource) bool
	AddAcls(acls []Acl, resource Resource) error
	RemoveAcls(acls []Acl, resource Resource) (bool, error)
	RemoveResource(resource Resource) (bool, error)
	GetAcls(resource Resource) []Acl
	GetAllAcls() map[Resource][]Acl
	Close()
}

type versionedAcls struct {
	acls      aclSet
	zkVersion int32
}

// SimpleAclAuthorizer is the ZooKeeper-backed Authorizer: /kafka-acl/<ResourceType>/<name> holds
// a resource's ACLs; every change writes /kafka-acl-changes/acl_changes_<seq> naming the resource,
// and each broker's listener reloads that resource into its cache.
//
// Kafka 0.10.2: kafka.security.auth.SimpleAclAuthorizer.
type SimpleAclAuthorizer struct {
	zkUtils                     *zkutils.ZkUtils
	superUsers                  map[string]bool
	allowEveryoneIfNoAclIsFound bool
	log                         *logrus.Entry // kafka.security.auth.SimpleAclAuthorizer
	audit                       *logrus.Entry // kafka.authorizer.logger

	mu       sync.RWMutex
	cache    map[Resource]versionedAcls
	listener *zkutils.ZkNodeChangeNotificationListener
}

// NewSimpleAclAuthorizer is configure: super.users ("User:a;User:b") and
// allow.everyone.if.no.acl.found from props, the ACL paths made, the change listener started, then
// the cache loaded. audit is the kafka.authorizer.logger (nil: log's).
func NewSimpleAclAuthorizer(zkUtils *zkutils.ZkUtils, props map[string]string, log, audit *logrus.Entry) (*SimpleAclAuthorizer, error) {
	a := &SimpleAclAuthorizer{zkUtils: zkUtils, superUsers: map[string]bool{}, cache: map[Resource]versionedAcls{},
		log: log.WithField("logger", "kafka.security.auth.SimpleAclAuthorizer"), audit: audit}
	if a.audit == nil {
		a.audit = log.WithField("logger", "kafka.authorizer.logger")
	}
	if s := strings.TrimSpace(props[SuperUsersProp]); s != "" {
		for _, u := range strings.Split(s, ";") {
			p := strings.TrimSpace(u)
			if i := strings.IndexByte(p, ':'); i <= 0 || i == len(p)-1 {
				return nil, fmt.Errorf("expected a string in format principalType:principalName but got %s", p)
			}
			a.superUsers[p] = true
		}
	}
	if v, ok := props[AllowEveryoneIfNoAclIsFoundProp]; ok {
		a.allowEveryoneIfNoAclIsFound = strings.EqualFold(strings.TrimSpace(v), "true")
	}
	if err := zkUtils.MakeSurePersistentPathExists(zkutils.KafkaAclPath); err != nil {
		return nil, err
	}
	a.listener = zkutils.NewZkNodeChangeNotificationListener(zkUtils, zkutils.KafkaAclChangesPath, zkutils.AclChangedPrefix, aclChangedHandler{a}, 0)
	if err := a.listener.Init(); err != nil {
		return nil, err
	}
	if err := a.loadCache(); err != nil {
		a.listener.Close()
		return nil, err
	}
	return a, nil
}

// Authorize: a super user, or a resource (with its type's wildcard) without ACLs when
// allow.everyone.if.no.acl.found, or no matching Deny and a matching Allow; an Allow of Read,
// Write or Delete also allows Describe.
func (a *SimpleAclAuthorizer) Authorize(session network.Session, operation Operation, resource Resource) bool {
	principal := session.Principal
	host := hostAddress(session.ClientAddr)
	acls := append(a.GetAcls(resource), a.GetAcls(Resource{ResourceType: resource.ResourceType, Name: WildCardResource})...)
	deny := a.aclMatch(operation, resource, principal, host, Deny, acls)
	ops := []Operation{operation}
	if operation == Describe {
		ops = append(ops, Read, Write, Delete)
	}
	allow := false
	for _, op := range ops {
		if a.aclMatch(op, resource, principal, host, Allow, acls) {
			allow = true
			break
		}
	}
	authorized := false
	switch {
	case a.superUsers[principal]:
		a.audit.Debugf("principal = %s is a super user, allowing operation without checking acls.", principal)
		authorized = true
	case len(acls) == 0:
		a.audit.Debugf("No acl found for resource %s, authorized = %v", resource, a.allowEveryoneIfNoAclIsFound)
		authorized = a.allowEveryoneIfNoAclIsFound
	default:
		authorized = !deny && allow
	}
	verdict := "Denied"
	if authorized {
		verdict = "Allowed"
	}
	a.audit.Debugf("Principal = %s is %s Operation = %s from host = %s on resource = %s", principal, verdict, operation, host, resource)
	return authorized
}

func (a *SimpleAclAuthorizer) aclMatch(op Operation, resource Resource, principal, host string, pt PermissionType, acls []Acl) bool {
	for _, acl := range acls {
		if acl.PermissionType == pt && (acl.Principal == principal || acl.Principal == WildCardPrincipal) &&
			(acl.Operation == op || acl.Operation == All) && (acl.Host == host || acl.Host == WildCardHost) {
			a.audit.Debugf("operation = %s on resource = %s from host = %s is %s based on acl = %s", op, resource, host, pt, acl)
			return true
		}
	}
	return false
}

// hostAddress is InetAddress.getHostAddress of the client.
func hostAddress(addr net.Addr) string {
	switch a := addr.(type) {
	case *net.TCPAddr:
		return a.IP.String()
	case nil:
		return ""
	}
	h, _, err := net.SplitHostPort(addr.String())
	if err != nil {
		return addr.String()
	}
	return h
}

// AddAcls adds acls to the resource's (conditional write with retries, then a change notification).
func (a *SimpleAclAuthorizer) AddAcls(acls []Acl, resource Resource) error {
	if len(acls) == 0 {
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	_, err := a.updateResourceAcls(resource, func(cur aclSet) aclSet {
		n := aclSet{}
		for k := range cur {
			n[k] = struct{}{}
		}
		for _, acl := range acls {
			n[acl] = struct{}{}
		}
		return n
	})
	return err
}

// RemoveAcls removes acls from the resource's; true when something changed.
func (a *SimpleAclAuthorizer) RemoveAcls(acls []Acl, resource Resource) (bool, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	drop := newAclSet(acls)
	return a.updateResourceAcls(resource, func(cur aclSet) aclSet {
		n := aclSet{}
		for k := range cur {
			if _, gone := drop[k]; !gone {
				n[k] = struct{}{}
			}
		}
		return n
	})
}

// RemoveResource deletes every ACL of the resource (removeAcls(resource)).
func (a *SimpleAclAuthorizer) RemoveResource(resource Resource) (bool, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	ok, err := a.zkUtils.DeletePath(a.resourcePath(resource))
	if err != nil {
		return false, err
	}
	a.cache[resource] = versionedAcls{acls: aclSet{}}
	return ok, a.updateAclChangedFlag(resource)
}

// GetAcls is the cached ACLs of exactly this resource.
func (a *SimpleAclAuthorizer) GetAcls(resource Resource) []Acl {
	a.mu.RLock()
	defer a.mu.RUnlock()
	v, ok := a.cache[resource]
	if !ok || len(v.acls) == 0 {
		return nil
	}
	return v.acls.list()
}

// GetAllAcls is every resource with ACLs.
func (a *SimpleAclAuthorizer) GetAllAcls() map[Resource][]Acl {
	a.mu.RLock()
	defer a.mu.RUnlock()
	out := map[Resource][]Acl{}
	for r, v := range a.cache {
		if len(v.acls) > 0 {
			out[r] = v.acls.list()
		}
	}
	return out
}

// Close stops the change listener.
func (a *SimpleAclAuthorizer) Close() { a.listener.Close() }

func (a *SimpleAclAuthorizer) resourcePath(r Resource) string {
	return zkutils.KafkaAclResourcePath(string(r.ResourceType), r.Name)
}

func (a *SimpleAclAuthorizer) loadCache() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	types, err := a.zkUtils.GetChildren(zkutils.KafkaAclPath)
	if err != nil {
		return err
	}
	for _, t := range types {
		rt, err := ResourceTypeFromString(t)
		if err != nil {
			return err
		}
		names, err := a.zkUtils.GetChildren(zkutils.KafkaAclPath + "/" + string(rt))
		if err != nil {
			return err
		}
		for _, n := range names {
			r := Resource{ResourceType: rt, Name: n}
			v, err := a.aclsFromZk(r)
			if err != nil {
				return err
			}
			a.cache[r] = v
		}
	}
	return nil
}

func (a *SimpleAclAuthorizer) aclsFromZk(r Resource) (versionedAcls, error) {
	data, stat, ok, err := a.zkUtils.ReadDataMaybeNull(a.resourcePath(r))
	if err != nil {
		return versionedAcls{}, err
	}
	if !ok {
		return versionedAcls{acls: aclSet{}, zkVersion: -1}, nil
	}
	acls, err := AclsFromZkData(data)
	if err != nil {
		return versionedAcls{}, err
	}
	return versionedAcls{acls: newAclSet(acls), zkVersion: stat.Version}, nil
}

// updateResourceAcls writes f(current) with a conditional update (create when absent, delete when
// empty), re-reading and retrying on a version conflict, as 0.10.2 does. Caller holds a.mu.
func (a *SimpleAclAuthorizer) updateResourceAcls(r Resource, f func(aclSet) aclSet) (bool, error) {
	path := a.resourcePath(r)
	cur, ok := a.cache[r]
	if !ok {
		var err error
		if cur, err = a.aclsFromZk(r); err != nil {
			return false, err
		}
	}
	for retries := 0; retries <= maxUpdateRetries; retries++ {
		next := f(cur.acls)
		var done bool
		var version int32
		var err error
		if len(next) > 0 {
			done, version, err = a.updatePath(path, AclsToZkData(next.list()), cur.zkVersion)
		} else {
			done, err = a.zkUtils.ConditionalDeletePath(path, cur.zkVersion)
			if errors.Is(err, zkclient.ErrNoNode) {
				done, err = true, nil
			}
		}
		if err != nil {
			return false, err
		}
		if !done {
			time.Sleep(retryBackoff + rand.N(retryBackoffJitter))
			if cur, err = a.aclsFromZk(r); err != nil {
				return false, err
			}
			continue
		}
		a.cache[r] = versionedAcls{acls: next, zkVersion: version}
		if next.equal(cur.acls) {
			return false, nil
		}
		return true, a.updateAclChangedFlag(r)
	}
	return false, fmt.Errorf("Failed to update ACLs for %s after trying a maximum of %d times", r, maxUpdateRetries)
}

func (a *SimpleAclAuthorizer) updatePath(path string, data []byte, version int32) (bool, int32, error) {
	ok, v, err := a.zkUtils.ConditionalUpdatePersistentPathIfExists(path, data, version)
	if errors.Is(err, zkclient.ErrNoNode) {
		err = a.zkUtils.CreatePersistentPath(path, data)
		if errors.Is(err, zkclient.ErrNodeExists) {
			return false, 0, nil
		}
		return err == nil, 0, err
	}
	return ok, v, err
}

func (a *SimpleAclAuthorizer) updateAclChangedFlag(r Resource) error {
	_, err := a.zkUtils.CreateSequentialPersistentPath(zkutils.KafkaAclChangesPath+"/"+zkutils.AclChangedPrefix, zkutils.AclChangeZkData(string(r.ResourceType), r.Name))
	return err
}

// aclChangedHandler reloads the resource a notification names.
//
// Kafka 0.10.2: SimpleAclAuthorizer.AclChangedNotificationHandler.
type aclChangedHandler struct{ a *SimpleAclAuthorizer }

func (h aclChangedHandler) ProcessNotification(msg []byte) error {
	r, err := ResourceFromString(string(msg))
	if err != nil {
		return err
	}
	h.a.mu.Lock()
	defer h.a.mu.Unlock()
	v, err := h.a.aclsFromZk(r)
	if err != nil {
		return err
	}
	h.a.cache[r] = v
	return nil
}

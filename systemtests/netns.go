package systemtests

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// Network is a small routed IPv4 network of Linux network namespaces that a test builds to cut
// links between real processes: a network partition, with the packets dropped in transit.
//
// Topology. One router namespace; every host (a ZooKeeper node, a broker) gets a namespace of
// its own, joined to the router by a veth pair on a /30 of its own (router side .4k+1, host
// side .4k+2) with a default route via the router. The test process stays in the namespace it
// runs in and is joined the same way on the first /30, as host Client, with a route for the
// network's /24 via the router; so the test's producers, consumers and ZooKeeper client reach
// every host, and a partition can cut them off too. Nothing else of the machine changes: one
// veth and one route in the test's namespace, both gone when the router namespace is deleted.
//
// A cut is a pair of policy-routing rules in the router (`ip rule add from A to B blackhole`,
// and back): the router drops those packets when it forwards them, silently, with no ICMP and
// no error to the sender, as a failed switch or a firewall would. TCP connections stay open and
// time out as they would across a real partition; Heal deletes the rules and traffic resumes
// on the same connections. Unlike `docker network disconnect` or a downed link, a cut is
// selective (a broker cut off from ZooKeeper keeps talking to the other brokers), and unlike
// iptables it needs only iproute2 and touches no firewall state of the machine's.
//
// Processes run in a host's namespace through Host.Wrapper (`ip netns exec <ns>`, which execs
// the command, so its pid, signals and process group are the process's own).
//
// Names: every namespace and the test-side veth are named zkp<pid>-..., so parallel test
// binaries do not collide, and a network left behind by a killed test binary is removed by the
// next NewNetwork (its pid no longer runs). The /24 is a free 10.x.y.0/24; adding its route is
// the lock against a concurrent run picking the same one.
//
// It needs root (CAP_NET_ADMIN and CAP_SYS_ADMIN) and the `ip` command (iproute2).
type Network struct {
	prefix string     // zkp<pid>-<n>
	base   netip.Addr // 10.x.y.0
	router string     // the router's namespace
	link   string     // the test-side veth

	mu    sync.Mutex
	hosts []*Host
	rules []int // priorities of the cut rules in the router
	prio  int
}

// Host is one namespace of a Network (or the test's own, for Network.Client).
type Host struct {
	Name string
	// NS is the namespace name; empty for the client (the test's own namespace).
	NS string
	// IP is the host's address.
	IP string
}

// Wrapper is the command prefix that runs a process in the host's namespace.
func (h *Host) Wrapper() []string {
	if h.NS == "" {
		return nil
	}
	return []string{"ip", "netns", "exec", h.NS}
}

var networkSeq struct {
	mu sync.Mutex
	n  int
}

// NetworkAvailable reports whether this process can build a Network (root and iproute2), and
// why not.
func NetworkAvailable() (bool, string) {
	if os.Geteuid() != 0 {
		return false, "network namespaces need root"
	}
	if _, err := exec.LookPath("ip"); err != nil {
		return false, "the ip command (iproute2) is missing"
	}
	return true, ""
}

// NewNetwork builds the router namespace and the client link; AddHost adds hosts.
func NewNetwork() (*Network, error) {
	if ok, why := NetworkAvailable(); !ok {
		return nil, errors.New(why)
	}
	removeStaleNetworks()
	networkSeq.mu.Lock()
	networkSeq.n++
	seq := networkSeq.n
	networkSeq.mu.Unlock()
	n := &Network{prefix: fmt.Sprintf("zkp%d-%d", os.Getpid(), seq), prio: 100}
	n.router = n.prefix + "-r"
	n.link = fmt.Sprintf("zkp%dc%d", os.Getpid(), seq)
	if len(n.link) > 15 { // IFNAMSIZ
		n.link = fmt.Sprintf("zkp%x", os.Getpid()*100+seq)
	}
	if err := ipCmd("netns", "add", n.router); err != nil {
		return nil, err
	}
	ok := false
	defer func() {
		if !ok {
			n.Close()
		}
	}()
	if err := n.routerSetup(); err != nil {
		return nil, err
	}
	if err := ipCmd("link", "add", n.link, "type", "veth", "peer", "name", "c0", "netns", n.router); err != nil {
		return nil, err
	}
	// Pick a free 10.x.y.0/24; `ip route add` fails if another run took it meanwhile.
	var lastErr error
	for attempt := 0; attempt < 20; attempt++ {
		base := netip.AddrFrom4([4]byte{10, byte(200 + rand.Intn(50)), byte(rand.Intn(256)), 0})
		if subnetInUse(base) {
			continue
		}
		client := addrAt(base, 2)
		if err := ipCmd("addr", "add", client.String()+"/30", "dev", n.link); err != nil {
			return nil, err
		}
		if err := ipCmd("link", "set", n.link, "up"); err != nil {
			return nil, err
		}
		if lastErr = ipCmd("route", "add", base.String()+"/24", "via", addrAt(base, 1).String(), "dev", n.link); lastErr != nil {
			_ = ipCmd("addr", "del", client.String()+"/30", "dev", n.link)
			continue
		}
		n.base = base
		break
	}
	if !n.base.IsValid() {
		return nil, fmt.Errorf("no free 10.x.y.0/24 for the test network: %v", lastErr)
	}
	if err := n.routerPort("c0", 0); err != nil {
		return nil, err
	}
	n.hosts = append(n.hosts, &Host{Name: "client", IP: addrAt(n.base, 2).String()})
	ok = true
	return n, nil
}

func (n *Network) routerSetup() error {
	if err := ipCmd("-n", n.router, "link", "set", "lo", "up"); err != nil {
		return err
	}
	// Forwarding is per namespace; a shell writes it from inside the router's.
	return ipCmd("netns", "exec", n.router, "sh", "-c", "echo 1 > /proc/sys/net/ipv4/ip_forward")
}

// routerPort addresses and raises the router's end of the k-th /30.
func (n *Network) routerPort(dev string, k int) error {
	if err := ipCmd("-n", n.router, "addr", "add", addrAt(n.base, 4*k+1).String()+"/30", "dev", dev); err != nil {
		return err
	}
	return ipCmd("-n", n.router, "link", "set", dev, "up")
}

// Client is the test process's own end of the network.
func (n *Network) Client() *Host {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.hosts[0]
}

// AddHost creates a namespace joined to the router and returns it.
func (n *Network) AddHost(name string) (*Host, error) {
	n.mu.Lock()
	k := len(n.hosts)
	n.mu.Unlock()
	if k >= 63 {
		return nil, errors.New("a Network holds at most 62 hosts")
	}
	h := &Host{Name: name, NS: fmt.Sprintf("%s-h%d", n.prefix, k), IP: addrAt(n.base, 4*k+2).String()}
	port := fmt.Sprintf("h%d", k)
	if err := ipCmd("netns", "add", h.NS); err != nil {
		return nil, err
	}
	n.mu.Lock()
	n.hosts = append(n.hosts, h)
	n.mu.Unlock()
	steps := [][]string{
		{"link", "add", "eth0", "netns", h.NS, "type", "veth", "peer", "name", port, "netns", n.router},
		{"-n", h.NS, "link", "set", "lo", "up"},
		{"-n", h.NS, "addr", "add", h.IP + "/30", "dev", "eth0"},
		{"-n", h.NS, "link", "set", "eth0", "up"},
	}
	for _, s := range steps {
		if err := ipCmd(s...); err != nil {
			return nil, err
		}
	}
	if err := n.routerPort(port, k); err != nil {
		return nil, err
	}
	if err := ipCmd("-n", h.NS, "route", "add", "default", "via", addrAt(n.base, 4*k+1).String()); err != nil {
		return nil, err
	}
	return h, nil
}

// Cut drops every packet between each host of a and each host of b, both ways, until Heal.
func (n *Network) Cut(a, b []*Host) error {
	for _, x := range a {
		for _, y := range b {
			if x == y {
				continue
			}
			for _, d := range [][2]*Host{{x, y}, {y, x}} {
				n.mu.Lock()
				n.prio++
				p := n.prio
				n.mu.Unlock()
				if err := ipCmd("-n", n.router, "rule", "add", "from", d[0].IP, "to", d[1].IP, "blackhole", "priority", strconv.Itoa(p)); err != nil {
					return err
				}
				n.mu.Lock()
				n.rules = append(n.rules, p)
				n.mu.Unlock()
			}
		}
	}
	return nil
}

// Heal removes every cut.
func (n *Network) Heal() error {
	n.mu.Lock()
	rules := n.rules
	n.rules = nil
	n.mu.Unlock()
	var first error
	for _, p := range rules {
		if err := ipCmd("-n", n.router, "rule", "del", "priority", strconv.Itoa(p)); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// Close deletes every namespace (and with them the veths and the client's route). Processes
// still running in a namespace keep it alive but unnamed; kill them first.
func (n *Network) Close() {
	n.mu.Lock()
	hosts := n.hosts
	n.hosts = nil
	n.mu.Unlock()
	for _, h := range hosts {
		if h.NS != "" {
			_ = ipCmd("netns", "del", h.NS)
		}
	}
	_ = ipCmd("netns", "del", n.router)
	_ = ipCmd("link", "del", n.link) // normally gone with its peer already
}

// addrAt is base + i within its /24.
func addrAt(base netip.Addr, i int) netip.Addr {
	b := base.As4()
	b[3] = byte(i)
	return netip.AddrFrom4(b)
}

// subnetInUse reports whether any route or address of the test's namespace overlaps base/24.
func subnetInUse(base netip.Addr) bool {
	out, err := exec.Command("ip", "-4", "route", "show", "table", "all").Output()
	if err != nil {
		return true
	}
	want := netip.PrefixFrom(base, 24)
	for _, f := range strings.Fields(string(out)) {
		p, err := netip.ParsePrefix(f)
		if err != nil {
			if a, err := netip.ParseAddr(f); err == nil {
				p = netip.PrefixFrom(a, 32)
			} else {
				continue
			}
		}
		if p.Overlaps(want) {
			return true
		}
	}
	return false
}

var staleName = regexp.MustCompile(`^zkp(\d+)-`)

// removeStaleNetworks deletes the namespaces of test binaries that no longer run.
func removeStaleNetworks() {
	entries, _ := os.ReadDir("/run/netns")
	for _, e := range entries {
		m := staleName.FindStringSubmatch(e.Name())
		if m == nil {
			continue
		}
		pid, _ := strconv.Atoi(m[1])
		if pid == os.Getpid() || processAlive(pid) {
			continue
		}
		_ = ipCmd("netns", "del", filepath.Base(e.Name()))
	}
}

func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// ipCmd runs `ip args...` and returns its stderr in the error.
func ipCmd(args ...string) error {
	cmd := exec.Command("ip", args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("ip %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return nil
}

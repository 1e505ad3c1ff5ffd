package ensemble

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// DefaultClasspath is the Debian zookeeper package's jar plus an slf4j
// binding. The zookeeper.jar MANIFEST Class-Path names the rest (jute,
// slf4j-api, netty, jetty, jackson, commons-*), so java finds them itself.
const DefaultClasspath = "/usr/share/java/zookeeper.jar:/usr/share/java/slf4j-simple.jar"

// findJava returns the java binary to run: explicit, $JAVA_HOME/bin/java,
// or java on PATH.
func findJava(explicit string) (string, error) {
	if explicit != "" {
		if st, err := os.Stat(explicit); err != nil || st.IsDir() {
			return "", fmt.Errorf("ensemble: java binary %q not found (Config.Java); install a JRE (apt-get install default-jre-headless)", explicit)
		}
		return explicit, nil
	}
	if home := os.Getenv("JAVA_HOME"); home != "" {
		p := filepath.Join(home, "bin", "java")
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p, nil
		}
	}
	p, err := exec.LookPath("java")
	if err != nil {
		return "", fmt.Errorf("ensemble: java not found on PATH or in JAVA_HOME: install a JRE (apt-get install default-jre-headless zookeeper): %w", err)
	}
	return p, nil
}

// resolveClasspath picks the classpath (explicit, ZOOKEEPER_CLASSPATH,
// ZOOKEEPER_HOME, the Debian default) and checks its jars exist, so that a
// missing ZooKeeper is a clear error rather than a JVM that dies or a wait
// that times out.
func resolveClasspath(explicit string) (string, error) {
	source, cp := "Config.Classpath", explicit
	if cp == "" {
		source, cp = "ZOOKEEPER_CLASSPATH", os.Getenv("ZOOKEEPER_CLASSPATH")
	}
	if cp == "" {
		if home := os.Getenv("ZOOKEEPER_HOME"); home != "" {
			var jars []string
			for _, pat := range []string{filepath.Join(home, "lib", "*.jar"), filepath.Join(home, "*.jar")} {
				m, _ := filepath.Glob(pat)
				jars = append(jars, m...)
			}
			if len(jars) == 0 {
				return "", fmt.Errorf("ensemble: ZOOKEEPER_HOME=%s holds no jars in lib/ or at its top", home)
			}
			sort.Strings(jars)
			return strings.Join(jars, string(os.PathListSeparator)), nil
		}
		source, cp = "the default classpath", DefaultClasspath
	}
	var missing []string
	found := 0
	for _, entry := range filepath.SplitList(cp) {
		if entry == "" {
			continue
		}
		if strings.HasSuffix(entry, "*") { // java's dir/* wildcard
			if m, _ := filepath.Glob(entry + ".jar"); len(m) > 0 {
				found++
				continue
			}
		} else if _, err := os.Stat(entry); err == nil {
			found++
			continue
		}
		missing = append(missing, entry)
	}
	if len(missing) > 0 || found == 0 {
		return "", fmt.Errorf("ensemble: ZooKeeper jars missing from %s (%s): missing %v; install the Debian zookeeper package or set ZOOKEEPER_HOME / ZOOKEEPER_CLASSPATH", source, cp, missing)
	}
	return cp, nil
}

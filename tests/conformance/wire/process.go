package wire

import (
	"bufio"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"syscall"
	"time"
)

// StartExtender runs netscore-extender with env added to the test's environment and returns
// once it has logged the address it listens on (NETSCORE_LISTEN port 0 picks a free one).
func StartExtender(bin string, env ...string) (*exec.Cmd, string, error) {
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), env...)
	address, err := startAndScan(cmd, "extender", regexp.MustCompile(`listening address=(127\.0\.0\.1:\d+)`))
	return cmd, address, err
}

// StartLogged runs cmd, echoing its stderr with a prefix, without waiting for anything.
func StartLogged(cmd *exec.Cmd, prefix string) error {
	_, err := startAndScan(cmd, prefix, nil)
	return err
}

// startAndScan echoes the child's stderr and, with an address pattern, waits for its first match.
func startAndScan(cmd *exec.Cmd, prefix string, address *regexp.Regexp) (string, error) {
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return "", err
	}
	if err := cmd.Start(); err != nil {
		return "", fmt.Errorf("start %s: %w", prefix, err)
	}
	found := make(chan string, 1)
	go func() {
		scanner := bufio.NewScanner(stderr)
		for scanner.Scan() {
			fmt.Fprintln(os.Stderr, prefix+":", scanner.Text())
			if address != nil {
				if m := address.FindStringSubmatch(scanner.Text()); m != nil {
					found <- m[1]
				}
			}
		}
	}()
	if address == nil {
		return "", nil
	}
	select {
	case a := <-found:
		return a, nil
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		return "", fmt.Errorf("%s did not report its address within 20s", prefix)
	}
}

// WaitReady polls base + "/readyz" until it answers 200, for at most timeout.
func WaitReady(base string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		resp, err := http.Get(base + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("%s/readyz not 200 within %v", base, timeout)
}

// Stop sends SIGTERM and waits; an exit status other than 0 or a stop slower than 20s is an error.
func Stop(cmd *exec.Cmd) error {
	cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		return fmt.Errorf("%s did not stop within 20s of SIGTERM", cmd.Path)
	}
}

// pause: the sandbox ("infra") container of the test nodes' pods. It holds
// the pod's namespaces open, sleeping until SIGTERM or SIGINT, and reaps any
// child reparented to it (it is PID 1 when the pod shares its PID namespace).
// Ours, so that no image is pulled from a registry; built with gcc -static.
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static void Stop(int sig) { _exit(128 + sig); }

static void Reap(int sig) {
  (void)sig;
  while (waitpid(-1, NULL, WNOHANG) > 0) {
  }
}

int main(void) {
  struct sigaction stop = {.sa_handler = Stop};
  struct sigaction reap = {.sa_handler = Reap, .sa_flags = SA_NOCLDSTOP | SA_RESTART};
  if (sigaction(SIGTERM, &stop, NULL) != 0 || sigaction(SIGINT, &stop, NULL) != 0 ||
      sigaction(SIGCHLD, &reap, NULL) != 0) {
    return 1;
  }
  for (;;) pause();
}

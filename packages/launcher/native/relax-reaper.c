/*
 * relax-reaper: a tiny supervisor for one agent process tree (Linux only).
 *
 *   relax-reaper [--grace-ms N] [--status-fd FD] [--uid UID --gid GID] [--merge-stderr] -- PROGRAM [ARGS...]
 *
 * It makes itself a child subreaper (prctl PR_SET_CHILD_SUBREAPER), so every orphaned descendant of the
 * agent (double-forked, setsid'd, daemonised) is re-parented to it instead of to PID 1. It forks PROGRAM
 * in a new session (so a new process group, pgid = pid), waits for it, and before exiting makes sure no
 * descendant is left: SIGTERM (+ SIGCONT) to the agent's group and to every descendant found under
 * /proc, a grace period, then SIGKILL until none remains, reaping every zombie on the way.
 *
 * Termination is requested with SIGTERM, SIGINT, SIGHUP or SIGQUIT (a second one skips the rest of the
 * grace period); SIGUSR1 requests it without any grace period (SIGKILL at once). The parent's death
 * does the same as SIGTERM (PR_SET_PDEATHSIG), so agents never outlive the launcher. When the agent
 * exits by itself, leftover descendants get the same SIGTERM / grace / SIGKILL treatment.
 *
 * With --uid/--gid (the reaper runs as root), the agent drops every supplementary group and switches to
 * GID and UID before exec, while the reaper itself keeps its privileges: the agent can neither signal nor
 * trace its supervisor, and the reaper can still signal every descendant.
 *
 * With --merge-stderr the agent's stderr is a duplicate of its stdout (one pipe, one order).
 *
 * With --passwd FILE / --group FILE / --expose DIR (root only), the agent gets a private mount namespace
 * before it drops its privileges: FILE is bound read-only over /etc/passwd (/etc/group), so that its uid
 * resolves to a user without editing the host's files, and each folder on the way to DIR that other
 * users cannot enter is covered by a tmpfs (mode 0711) holding only the way to DIR, bound from the
 * original: DIR becomes reachable by the agent's uid, and nothing else of those folders does. With
 * --hide PATH (after the exposures), an existing folder is covered by an empty read-only tmpfs and an
 * existing file by /dev/null: the gateway's own files (rows, journal, prompts, logs) vanish for the agent.
 * With --unshare-net (root only) the agent gets a new network namespace whose only interface is a
 * loopback (brought up here): nothing outside is reachable except through sockets it is handed.
 *
 *   relax-reaper --lease-holder DIR
 *
 * holds host-wide uid leases: one flock(2) per uid on DIR/<uid>.lock (DIR: root-owned, 0700), for as
 * long as this process lives (it exits when its stdin closes or its parent dies; the kernel then drops
 * every lock). Commands on stdin, one answer line each on stdout:
 *   lock <uid> <holder>    ->  ok <uid> <previous holder or ->  |  busy <uid>  |  error <uid> <errno>
 *   unlock <uid>           ->  unlocked <uid>  (the file is emptied first: a clean release)
 *
 * Status lines are written to --status-fd (close-on-exec, never inherited by the agent):
 *   started <pid>                 the agent was exec'd
 *   error <stage> <errno>         fork/mount/setgroups/setgid/setuid/exec failed (the reaper then exits 127)
 *   exit <code> <signal>          the agent exited (code -1 when killed by <signal>, signal 0 otherwise)
 *   done <leftover> <reaped>      no descendant remains; <leftover> descendants were alive when the agent
 *                                 exited, <reaped> zombies were reaped in total
 * The reaper's own exit status is the agent's code, or 128 + signal number.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <net/if.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define POLL_NS 20000000L /* 20 ms between /proc scans while descendants are draining */

static int status_fd = -1;

static void report(const char *format, ...) {
  if (status_fd < 0) return;
  char line[128];
  va_list args;
  va_start(args, format);
  int length = vsnprintf(line, sizeof line, format, args);
  va_end(args);
  if (length <= 0) return;
  if ((size_t)length >= sizeof line) length = sizeof line - 1;
  const char *cursor = line;
  while (length > 0) {
    ssize_t written = write(status_fd, cursor, (size_t)length);
    if (written < 0) {
      if (errno == EINTR) continue;
      status_fd = -1; /* the launcher went away: keep supervising, stop reporting */
      return;
    }
    cursor += written;
    length -= (int)written;
  }
}

static long long now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* ---- descendant discovery: /proc/<pid>/stat gives the parent of every process ---- */

typedef struct {
  pid_t *pids;
  pid_t *parents;
  size_t length;
  size_t capacity;
} process_table;

static void table_push(process_table *table, pid_t pid, pid_t parent) {
  if (table->length == table->capacity) {
    size_t capacity = table->capacity ? table->capacity * 2 : 512;
    pid_t *pids = realloc(table->pids, capacity * sizeof *pids);
    if (pids == NULL) return;
    table->pids = pids;
    pid_t *parents = realloc(table->parents, capacity * sizeof *parents);
    if (parents == NULL) return;
    table->parents = parents;
    table->capacity = capacity;
  }
  table->pids[table->length] = pid;
  table->parents[table->length] = parent;
  table->length++;
}

static void read_process_table(process_table *table) {
  table->length = 0;
  DIR *proc = opendir("/proc");
  if (proc == NULL) return;
  struct dirent *entry;
  char path[64];
  char buffer[512];
  while ((entry = readdir(proc)) != NULL) {
    char *end;
    long pid = strtol(entry->d_name, &end, 10);
    if (*end != '\0' || pid <= 0) continue;
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue;
    ssize_t length = read(fd, buffer, sizeof buffer - 1);
    close(fd);
    if (length <= 0) continue;
    buffer[length] = '\0';
    /* "pid (comm) state ppid ...": comm may contain spaces and ')', so parse after the last ')'. */
    char *close_paren = strrchr(buffer, ')');
    if (close_paren == NULL) continue;
    char state;
    long parent;
    if (sscanf(close_paren + 1, " %c %ld", &state, &parent) != 2) continue;
    table_push(table, (pid_t)pid, (pid_t)parent);
  }
  closedir(proc);
}

/* Fills `out` with every descendant of `root` (zombies included); returns the count. */
static size_t find_descendants(process_table *table, pid_t root, pid_t **out, size_t *out_capacity) {
  read_process_table(table);
  size_t count = 0;
  /* Breadth-first over the parent links: a frontier index walks `out` as it grows. */
  size_t frontier = 0;
  pid_t current = root;
  for (;;) {
    for (size_t i = 0; i < table->length; i++) {
      if (table->parents[i] != current) continue;
      if (count == *out_capacity) {
        size_t capacity = *out_capacity ? *out_capacity * 2 : 64;
        pid_t *grown = realloc(*out, capacity * sizeof **out);
        if (grown == NULL) return count;
        *out = grown;
        *out_capacity = capacity;
      }
      (*out)[count++] = table->pids[i];
    }
    if (frontier == count) break;
    current = (*out)[frontier++];
  }
  return count;
}


/* ---- uid leases: one flock per uid, held while this process lives ---- */

static int lease_holder(const char *directory) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() == 1) return 1; /* the launcher is already gone */
  signal(SIGPIPE, SIG_IGN);
  int dir_fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
  struct stat dir_stat;
  if (dir_fd < 0 || fstat(dir_fd, &dir_stat) != 0 || dir_stat.st_uid != geteuid() ||
      (dir_stat.st_mode & 077) != 0) {
    fprintf(stderr, "relax-reaper: %s must be a folder of this uid with mode 0700\n", directory);
    return 2;
  }
  enum { MAX_LEASES = 65536 };
  static long uids[MAX_LEASES];
  static int fds[MAX_LEASES];
  size_t held = 0;
  char line[512];
  while (fgets(line, sizeof line, stdin) != NULL) {
    char verb[16] = "", holder[256] = "-";
    long uid = -1;
    if (sscanf(line, "%15s %ld %255s", verb, &uid, holder) < 2 || uid <= 0) {
      printf("error %ld %d\n", uid, EINVAL);
    } else if (strcmp(verb, "lock") == 0) {
      size_t index = 0;
      while (index < held && uids[index] != uid) index++;
      char name[32];
      snprintf(name, sizeof name, "%ld.lock", uid);
      int fd = index < held ? -1 : openat(dir_fd, name, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
      if (index < held) {
        printf("busy %ld\n", uid); /* already ours */
      } else if (fd < 0 || held == MAX_LEASES) {
        printf("error %ld %d\n", uid, fd < 0 ? errno : ENOSPC);
        if (fd >= 0) close(fd);
      } else if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        int error = errno;
        close(fd);
        if (error == EWOULDBLOCK) printf("busy %ld\n", uid);
        else printf("error %ld %d\n", uid, error);
      } else {
        char previous[128];
        ssize_t length = pread(fd, previous, sizeof previous - 1, 0);
        if (length < 0) length = 0;
        previous[length] = '\0';
        size_t keep = 0; /* one token of [A-Za-z0-9@._-] */
        while (previous[keep] != '\0' && (previous[keep] == '@' || previous[keep] == '.' || previous[keep] == '_' ||
                                          previous[keep] == '-' || (previous[keep] >= '0' && previous[keep] <= '9') ||
                                          (previous[keep] >= 'a' && previous[keep] <= 'z') ||
                                          (previous[keep] >= 'A' && previous[keep] <= 'Z')))
          keep++;
        previous[keep] = '\0';
        if (ftruncate(fd, 0) != 0 || pwrite(fd, holder, strlen(holder), 0) < 0) {
          printf("error %ld %d\n", uid, errno);
          close(fd);
        } else {
          uids[held] = uid;
          fds[held] = fd;
          held++;
          printf("ok %ld %s\n", uid, keep > 0 ? previous : "-");
        }
      }
    } else if (strcmp(verb, "unlock") == 0) {
      for (size_t index = 0; index < held; index++) {
        if (uids[index] != uid) continue;
        if (ftruncate(fds[index], 0) != 0) { /* a stale holder's name stays: the next owner sweeps */ }
        close(fds[index]);
        held--;
        uids[index] = uids[held];
        fds[index] = fds[held];
        break;
      }
      printf("unlocked %ld\n", uid);
    } else {
      printf("error %ld %d\n", uid, EINVAL);
    }
    fflush(stdout);
  }
  return 0;
}

/* ---- the agent's private mount namespace (root only, before privileges are dropped) ---- */

/* Makes `target` reachable by other users: every folder above it that they cannot enter is covered by a
   tmpfs (0711) in which only the next component exists, bound from the original (opened beforehand). */
static int expose_path(const char *target) {
  if (target[0] != '/' || strlen(target) >= 4096) return EINVAL;
  char path[4096];
  size_t length = 1;
  path[0] = '/';
  path[1] = '\0';
  const char *rest = target + 1;
  while (*rest != '\0') {
    while (*rest == '/') rest++;
    if (*rest == '\0') break;
    const char *slash = strchr(rest, '/');
    size_t part = slash ? (size_t)(slash - rest) : strlen(rest);
    struct stat folder;
    if (stat(path, &folder) != 0) return errno;
    char child[4096];
    snprintf(child, sizeof child, "%s%s%.*s", path, length > 1 ? "/" : "", (int)part, rest);
    if ((folder.st_mode & S_IXOTH) == 0) {
      int fd = open(child, O_PATH | O_CLOEXEC);
      if (fd < 0) return errno;
      struct stat inner;
      if (fstat(fd, &inner) != 0 || !S_ISDIR(inner.st_mode)) {
        close(fd);
        return ENOTDIR;
      }
      if (mount("tmpfs", path, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0711,size=64k") != 0 ||
          mkdir(child, 0755) != 0) {
        int error = errno;
        close(fd);
        return error;
      }
      char source[64];
      snprintf(source, sizeof source, "/proc/self/fd/%d", fd);
      int bound = mount(source, child, NULL, MS_BIND | MS_REC, NULL);
      int error = errno;
      close(fd);
      if (bound != 0) return error;
    }
    snprintf(path, sizeof path, "%s", child);
    length = strlen(path);
    rest += part;
  }
  return 0;
}

/* Covers `path` for the agent: a folder by an empty read-only tmpfs, a file by /dev/null. Missing: nothing. */
static int hide_path(const char *path) {
  struct stat target;
  if (lstat(path, &target) != 0) return errno == ENOENT ? 0 : errno;
  if (S_ISDIR(target.st_mode)) {
    if (mount("tmpfs", path, "tmpfs", MS_NOSUID | MS_NODEV | MS_RDONLY, "mode=0755,size=4k") != 0) return errno;
  } else if (S_ISREG(target.st_mode)) {
    if (mount("/dev/null", path, NULL, MS_BIND, NULL) != 0) return errno;
    mount(NULL, path, NULL, MS_BIND | MS_REMOUNT | MS_RDONLY, NULL);
  }
  return 0;
}

/* A new network namespace with its loopback interface up. */
static int private_network(void) {
  if (unshare(CLONE_NEWNET) != 0) return errno;
  int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return errno;
  struct ifreq request;
  memset(&request, 0, sizeof request);
  strncpy(request.ifr_name, "lo", IFNAMSIZ - 1);
  int error = 0;
  if (ioctl(fd, SIOCGIFFLAGS, &request) != 0) error = errno;
  request.ifr_flags |= IFF_UP | IFF_RUNNING;
  if (error == 0 && ioctl(fd, SIOCSIFFLAGS, &request) != 0) error = errno;
  close(fd);
  return error;
}

static int private_mounts(const char *passwd, const char *group, char **exposed, int exposed_count,
                          char **hidden, int hidden_count) {
  char cwd[4096];
  if (getcwd(cwd, sizeof cwd) == NULL) cwd[0] = '\0';
  if (unshare(CLONE_NEWNS) != 0) return errno;
  if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) return errno;
  const char *files[2][2] = {{passwd, "/etc/passwd"}, {group, "/etc/group"}};
  for (int i = 0; i < 2; i++) {
    if (files[i][0] == NULL) continue;
    if (mount(files[i][0], files[i][1], NULL, MS_BIND, NULL) != 0) return errno;
    mount(NULL, files[i][1], NULL, MS_BIND | MS_REMOUNT | MS_RDONLY, NULL);
  }
  for (int i = 0; i < exposed_count; i++) {
    int error = expose_path(exposed[i]);
    if (error != 0) return error;
  }
  for (int i = 0; i < hidden_count; i++) {
    int error = hide_path(hidden[i]);
    if (error != 0) return error;
  }
  if (cwd[0] != '\0' && chdir(cwd) != 0) return errno;
  return 0;
}

static void signal_all(const pid_t *pids, size_t count, int signal) {
  for (size_t i = 0; i < count; i++) kill(pids[i], signal);
}

int main(int argc, char **argv) {
  long grace_ms = 5000;
  long run_uid = -1;
  long run_gid = -1;
  int merge_stderr = 0;
  int unshare_net = 0;
  const char *passwd_file = NULL;
  const char *group_file = NULL;
  char *exposed[16];
  int exposed_count = 0;
  char *hidden[64];
  int hidden_count = 0;
  int arg = 1;
  if (argc == 3 && strcmp(argv[1], "--lease-holder") == 0) return lease_holder(argv[2]);
  for (; arg < argc; arg++) {
    if (strcmp(argv[arg], "--") == 0) {
      arg++;
      break;
    } else if (strcmp(argv[arg], "--grace-ms") == 0 && arg + 1 < argc) {
      grace_ms = strtol(argv[++arg], NULL, 10);
      if (grace_ms < 0) grace_ms = 0;
    } else if (strcmp(argv[arg], "--status-fd") == 0 && arg + 1 < argc) {
      status_fd = (int)strtol(argv[++arg], NULL, 10);
    } else if (strcmp(argv[arg], "--uid") == 0 && arg + 1 < argc) {
      run_uid = strtol(argv[++arg], NULL, 10);
    } else if (strcmp(argv[arg], "--gid") == 0 && arg + 1 < argc) {
      run_gid = strtol(argv[++arg], NULL, 10);
    } else if (strcmp(argv[arg], "--passwd") == 0 && arg + 1 < argc) {
      passwd_file = argv[++arg];
    } else if (strcmp(argv[arg], "--group") == 0 && arg + 1 < argc) {
      group_file = argv[++arg];
    } else if (strcmp(argv[arg], "--expose") == 0 && arg + 1 < argc && exposed_count < 16) {
      exposed[exposed_count++] = argv[++arg];
    } else if (strcmp(argv[arg], "--hide") == 0 && arg + 1 < argc && hidden_count < 64) {
      hidden[hidden_count++] = argv[++arg];
    } else if (strcmp(argv[arg], "--unshare-net") == 0) {
      unshare_net = 1;
    } else if (strcmp(argv[arg], "--merge-stderr") == 0) {
      merge_stderr = 1;
    } else if (strcmp(argv[arg], "--version") == 0) {
      printf("relax-reaper 1\n");
      return 0;
    } else {
      fprintf(stderr, "relax-reaper: unknown argument %s\n", argv[arg]);
      return 2;
    }
  }
  if (arg >= argc) {
    fprintf(stderr, "usage: relax-reaper [--grace-ms N] [--status-fd FD] [--uid UID --gid GID] [--merge-stderr] -- PROGRAM [ARGS...]\n");
    return 2;
  }
  if ((run_uid < 0) != (run_gid < 0) || run_uid == 0 || run_gid == 0) {
    fprintf(stderr, "relax-reaper: --uid and --gid go together and must not be 0\n");
    return 2;
  }
  if (status_fd >= 0 && fcntl(status_fd, F_SETFD, FD_CLOEXEC) < 0) status_fd = -1;

  pid_t launcher = getppid();
  if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) {
    report("error subreaper %d\n", errno);
    fprintf(stderr, "relax-reaper: prctl(PR_SET_CHILD_SUBREAPER) failed: %s\n", strerror(errno));
    return 127;
  }
  prctl(PR_SET_PDEATHSIG, SIGTERM);

  /* Every signal we act on is blocked and consumed synchronously with sigtimedwait. */
  sigset_t handled, original;
  sigemptyset(&handled);
  sigaddset(&handled, SIGCHLD);
  sigaddset(&handled, SIGTERM);
  sigaddset(&handled, SIGINT);
  sigaddset(&handled, SIGHUP);
  sigaddset(&handled, SIGQUIT);
  sigaddset(&handled, SIGUSR1);
  sigprocmask(SIG_BLOCK, &handled, &original);
  signal(SIGPIPE, SIG_IGN);

  int exec_pipe[2];
  if (pipe2(exec_pipe, O_CLOEXEC) != 0) {
    report("error pipe %d\n", errno);
    return 127;
  }
  pid_t agent = fork();
  if (agent < 0) {
    report("error fork %d\n", errno);
    fprintf(stderr, "relax-reaper: fork failed: %s\n", strerror(errno));
    return 127;
  }
  if (agent == 0) {
    /* The agent: new session (pgid = sid = pid), default signal state, then exec. */
    close(exec_pipe[0]);
    setsid();
    signal(SIGPIPE, SIG_DFL);
    sigset_t empty;
    sigemptyset(&empty);
    sigprocmask(SIG_SETMASK, &empty, NULL);
    if (merge_stderr) dup2(STDOUT_FILENO, STDERR_FILENO);
    int failure[2] = {0, 0}; /* stage (0 exec, 1 setgroups, 2 setgid, 3 setuid, 4 mount), errno */
    if (unshare_net) {
      int error = private_network();
      if (error != 0) {
        failure[0] = 4;
        errno = error;
      }
    }
    if (failure[0] == 0 && (passwd_file != NULL || group_file != NULL || exposed_count > 0 || hidden_count > 0)) {
      int error = private_mounts(passwd_file, group_file, exposed, exposed_count, hidden, hidden_count);
      if (error != 0) {
        failure[0] = 4;
        errno = error;
      }
    }
    if (run_uid > 0 && failure[0] == 0) {
      if (setgroups(0, NULL) != 0) failure[0] = 1;
      else if (setgid((gid_t)run_gid) != 0) failure[0] = 2;
      else if (setuid((uid_t)run_uid) != 0) failure[0] = 3;
      else if (setuid(0) == 0) { /* privileges must be gone for good */
        failure[0] = 3;
        errno = EPERM;
      }
    }
    if (failure[0] == 0) execvp(argv[arg], &argv[arg]);
    failure[1] = errno;
    ssize_t ignored = write(exec_pipe[1], failure, sizeof failure);
    (void)ignored;
    _exit(127);
  }
  close(exec_pipe[1]);
  int failure[2] = {0, 0};
  ssize_t got;
  do {
    got = read(exec_pipe[0], failure, sizeof failure);
  } while (got < 0 && errno == EINTR);
  close(exec_pipe[0]);
  if (got == (ssize_t)sizeof failure) {
    static const char *const stages[] = {"exec", "setgroups", "setgid", "setuid", "mount"};
    const char *stage = stages[failure[0] >= 0 && failure[0] <= 4 ? failure[0] : 0];
    int exec_error = failure[1];
    report("error %s %d\n", stage, exec_error);
    fprintf(stderr, "relax-reaper: cannot %s %s: %s\n", stage, argv[arg], strerror(exec_error));
    waitpid(agent, NULL, 0);
    return 127;
  }
  report("started %d\n", (int)agent);

  enum { RUNNING, TERMINATING, KILLING } phase = RUNNING;
  int termination_requests = getppid() != launcher ? 1 : 0; /* the launcher died before PDEATHSIG */
  int agent_exited = 0;
  int agent_code = 0, agent_signal = 0;
  long leftover = -1;
  long reaped = 0;
  long long deadline = 0;
  process_table table = {0};
  pid_t *descendants = NULL;
  size_t descendants_capacity = 0;

  for (;;) {
    int status;
    pid_t child;
    while ((child = waitpid(-1, &status, WNOHANG)) > 0) {
      reaped++;
      if (child == agent && !agent_exited) {
        agent_exited = 1;
        if (WIFSIGNALED(status)) {
          agent_code = -1;
          agent_signal = WTERMSIG(status);
        } else {
          agent_code = WEXITSTATUS(status);
        }
        report("exit %d %d\n", agent_code, agent_signal);
      }
    }

    size_t remaining = 0;
    if (agent_exited || phase != RUNNING || termination_requests > 0) {
      remaining = find_descendants(&table, getpid(), &descendants, &descendants_capacity);
      if (agent_exited && leftover < 0) leftover = (long)remaining;
      if (agent_exited && remaining == 0) break;
    }

    if (phase == RUNNING && (termination_requests > 0 || agent_exited)) {
      if (!agent_exited) kill(-agent, SIGTERM);
      signal_all(descendants, remaining, SIGTERM);
      if (!agent_exited) kill(-agent, SIGCONT);
      signal_all(descendants, remaining, SIGCONT);
      phase = TERMINATING;
      deadline = now_ns() + grace_ms * 1000000LL;
    }
    if (phase == TERMINATING && (now_ns() >= deadline || termination_requests > 1)) phase = KILLING;
    if (phase == KILLING) {
      if (!agent_exited) kill(-agent, SIGKILL);
      signal_all(descendants, remaining, SIGKILL);
    }

    siginfo_t info;
    int signal_number;
    if (phase == RUNNING) {
      signal_number = sigwaitinfo(&handled, &info);
    } else {
      struct timespec timeout = {0, POLL_NS};
      if (phase == TERMINATING) {
        long long left = deadline - now_ns();
        if (left < POLL_NS) timeout.tv_nsec = left > 0 ? (long)left : 0;
      }
      signal_number = sigtimedwait(&handled, &info, &timeout);
    }
    if (signal_number == SIGUSR1) {
      termination_requests += 2;
    } else if (signal_number > 0 && signal_number != SIGCHLD) {
      termination_requests++;
    }
  }

  report("done %ld %ld\n", leftover < 0 ? 0 : leftover, reaped);
  free(table.pids);
  free(table.parents);
  free(descendants);
  return agent_code >= 0 ? agent_code : 128 + agent_signal;
}

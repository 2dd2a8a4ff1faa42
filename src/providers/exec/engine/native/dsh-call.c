/*
 * dsh-call: one call of a session's channel, inside its container, without a
 * bash of its own (docs/containers.md#the-native-call-helper). The holder
 * (channel-holder.ts) starts it as `dsh-call <dir> <id>` in the background
 * where its bash subshell and the one-shot exec wrapper (EXEC_WRAPPER in
 * container-exec-wrapper.ts) would otherwise run, and it does what the two
 * do, in the same order, with the same results: open the call's files, say
 * `+` (or `!`), read the keyed header, enter the workdir, run the command's
 * bash in its own process group with the same environment and descriptors,
 * report a death by a signal, kill and count what the command left behind,
 * and write the status. As there, the status comes from a process of its own
 * (this one) and the wrapper's work from its child, which alone carries the
 * wrapper's tag. Static, so any image of the same architecture runs it.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The TypeScript side's names for these (test/providers/exec/engine/native/call-helper.test.ts holds them equal). */
#define VERSION "dsh-call 1"              /* CALL_HELPER_VERSION */
#define TAG_VAR "DSH_EXEC_TAG"            /* EXEC_TAG_VAR */
#define WRAPPER_TAG_SUFFIX "w"            /* WRAPPER_TAG_SUFFIX */
#define WORKDIR_STATUS 125                /* WORKDIR_STATUS */
#define OPENED "+"                        /* HOLDER_OPENED */
#define UNSTARTED "!"                     /* HOLDER_UNSTARTED */
#define HEADER_STATUS 124                 /* EXEC_WRAPPER's `exit 124` */

extern char **environ;

static int write_all(int fd, const char *buf, size_t len) {
  while (len > 0) {
    ssize_t n = write(fd, buf, len);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return -1;
    buf += n;
    len -= (size_t)n;
  }
  return 0;
}

static void say(int fd, const char *text) { write_all(fd, text, strlen(text)); }

/* A whole file (a request, an environ); NULL when it cannot be read. */
static char *read_file(const char *path, size_t *size) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return NULL;
  size_t cap = 4096, len = 0;
  char *buf = malloc(cap + 1);
  for (;;) {
    if (len == cap) buf = realloc(buf, (cap *= 2) + 1);
    ssize_t n = read(fd, buf + len, cap - len);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) { free(buf); close(fd); return NULL; }
    if (n == 0) break;
    len += (size_t)n;
  }
  close(fd);
  buf[len] = 0;
  *size = len;
  return buf;
}

/* Exactly `want` bytes (fewer only at the end of the stream), read one at a time for a line. */
static ssize_t read_exact(int fd, char *buf, size_t want) {
  size_t got = 0;
  while (got < want) {
    ssize_t n = read(fd, buf + got, want - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += (size_t)n;
  }
  return (ssize_t)got;
}

/* ---- the environment the wrapper's bash would give the command ---- */

static char **env;
static size_t env_len, env_cap;

static char *env_find(const char *name, size_t *index) {
  size_t len = strlen(name);
  for (size_t i = 0; i < env_len; i++)
    if (strncmp(env[i], name, len) == 0 && env[i][len] == '=') {
      if (index) *index = i;
      return env[i] + len + 1;
    }
  return NULL;
}

static void env_unset(const char *name) {
  size_t i;
  if (env_find(name, &i) == NULL) return;
  memmove(env + i, env + i + 1, (env_len - i) * sizeof *env);
  env_len--;
}

static void env_put(char *entry) {
  size_t name_len = strchr(entry, '=') - entry;
  char name[name_len + 1];
  memcpy(name, entry, name_len);
  name[name_len] = 0;
  size_t i;
  if (env_find(name, &i) != NULL) { env[i] = entry; return; }
  if (env_len + 2 > env_cap) env = realloc(env, (env_cap = env_cap * 2 + 16) * sizeof *env);
  env[env_len++] = entry;
  env[env_len] = NULL;
}

static void env_set(const char *name, const char *value) {
  char *entry;
  if (asprintf(&entry, "%s=%s", name, value) < 0) exit(1);
  env_put(entry);
}

/* A name bash's `export` takes. */
static int valid_name(const char *s, size_t len) {
  if (len == 0 || !(s[0] == '_' || ((s[0] | 32) >= 'a' && (s[0] | 32) <= 'z'))) return 0;
  for (size_t i = 1; i < len; i++)
    if (!(s[i] == '_' || (s[i] >= '0' && s[i] <= '9') || ((s[i] | 32) >= 'a' && (s[i] | 32) <= 'z'))) return 0;
  return 1;
}

/* SHLVL as the command's bash receives it: the wrapper's bash counts one up, its child one down. */
static void set_shell_level(void) {
  const char *value = env_find("SHLVL", NULL);
  long level = 0;
  if (value != NULL && *value) {
    char *end;
    errno = 0;
    level = strtol(value, &end, 10);
    if (errno || *end || level < 0) level = 0;
  }
  if (level + 1 >= 1000) level = 0;
  char text[24];
  snprintf(text, sizeof text, "%ld", level);
  env_set("SHLVL", text);
}

/* bash's search for a name without a slash: the first executable file of $PATH (its default when unset). */
static char *find_program(const char *name) {
  if (strchr(name, '/') != NULL) return strdup(name);
  const char *search = env_find("PATH", NULL);
  if (search == NULL) search = "/usr/local/bin:/usr/local/sbin:/usr/bin:/usr/sbin:/bin:/sbin:.";
  for (const char *at = search;;) {
    const char *end = strchr(at, ':');
    size_t len = end ? (size_t)(end - at) : strlen(at);
    char *candidate;
    if (asprintf(&candidate, "%.*s%s%s", (int)len, len ? at : ".", "/", name) < 0) return NULL;
    struct stat st;
    if (stat(candidate, &st) == 0 && S_ISREG(st.st_mode) && access(candidate, X_OK) == 0) {
      if (len == 0) { free(candidate); return strdup(name); }
      return candidate;
    }
    free(candidate);
    if (end == NULL) return NULL;
    at = end + 1;
  }
}

/* ---- what the command left behind ---- */

struct stat_line { char state; long ppid, pgrp; unsigned long long start; };

static int read_stat(const char *pid, struct stat_line *out) {
  char path[64], buf[1024];
  snprintf(path, sizeof path, "/proc/%s/stat", pid);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0) return -1;
  buf[n] = 0;
  char *p = strrchr(buf, ')');
  if (p == NULL) return -1;
  /* state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime cutime cstime priority nice threads itrealvalue starttime */
  if (sscanf(p + 1, " %c %ld %ld %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %llu",
             &out->state, &out->ppid, &out->pgrp, &out->start) != 4) return -1;
  return 0;
}

/* 0 when its environ carries either tag, 1 when not, 2 unreadable, 3 empty (mid-execve, or `env -i`). */
static int tagged(const char *pid, const char *tag, const char *wrapper_tag) {
  char path[64];
  size_t size;
  snprintf(path, sizeof path, "/proc/%s/environ", pid);
  char *data = read_file(path, &size);
  if (data == NULL) return 2;
  if (size == 0) { free(data); return 3; }
  int found = 1;
  for (size_t at = 0; at < size; at += strlen(data + at) + 1)
    if (strcmp(data + at, tag) == 0 || strcmp(data + at, wrapper_tag) == 0) { found = 0; break; }
  free(data);
  return found;
}

static void pause_ms(long ms) {
  struct timespec t = { 0, ms * 1000000L };
  while (nanosleep(&t, &t) < 0 && errno == EINTR) {}
}

/*
 * Kills what the command left: its process group and every process started
 * since this one that carries the command's tag or the wrapper's, skipping
 * our own children (feeders, never the command's), our parent (the status
 * writer) and zombies. Stopped first, then killed; returns how many.
 */
static int kill_leftovers(pid_t command, const char *tag_value) {
  char *tag, *wrapper_tag, self[24];
  if (asprintf(&tag, "%s=%s", TAG_VAR, tag_value) < 0 || asprintf(&wrapper_tag, "%s=%s" WRAPPER_TAG_SUFFIX, TAG_VAR, tag_value) < 0) return 0;
  const long own_pid = (long)getpid(), status_writer = (long)getppid();
  snprintf(self, sizeof self, "%ld", own_pid);
  struct stat_line own;
  if (read_stat(self, &own) < 0) return 0;
  size_t cap = 64, count = 0, empty_count = 0;
  pid_t *kill_list = malloc(cap * sizeof *kill_list), *empty = malloc(cap * sizeof *empty);
  DIR *proc = opendir("/proc");
  struct dirent *entry;
  while (proc != NULL && (entry = readdir(proc)) != NULL) {
    if (entry->d_name[0] < '0' || entry->d_name[0] > '9' || strcmp(entry->d_name, self) == 0) continue;
    struct stat_line line;
    if (read_stat(entry->d_name, &line) < 0 || line.start < own.start) continue;
    if (line.state == 'Z' || line.ppid == own_pid) continue;
    pid_t pid = (pid_t)atol(entry->d_name);
    /* The status writer: it may not have blanked its copy of the tag yet (forked in the same clock tick). */
    if (pid == status_writer) continue;
    int verdict = line.pgrp == (long)command ? 0 : tagged(entry->d_name, tag, wrapper_tag);
    if (verdict != 0 && verdict != 3) continue;
    if (count == cap || empty_count == cap) {
      cap *= 2;
      kill_list = realloc(kill_list, cap * sizeof *kill_list);
      empty = realloc(empty, cap * sizeof *empty);
    }
    if (verdict == 0) kill_list[count++] = pid;
    else empty[empty_count++] = pid;
  }
  if (proc != NULL) closedir(proc);
  kill_list = realloc(kill_list, (count + empty_count + 1) * sizeof *kill_list);
  /* A process caught mid-execve (a setsid daemon just started) shows an empty environ for a moment: asked again. */
  for (size_t i = 0; i < empty_count; i++) {
    char pid[24];
    snprintf(pid, sizeof pid, "%ld", (long)empty[i]);
    for (int attempt = 0; attempt < 5; attempt++) {
      pause_ms(10);
      int verdict = tagged(pid, tag, wrapper_tag);
      if (verdict == 0) kill_list[count++] = empty[i];
      if (verdict != 3) break;
    }
  }
  for (size_t i = 0; i < count; i++) kill(kill_list[i], SIGSTOP);
  int killed = 0;
  for (size_t i = 0; i < count; i++)
    if (kill(kill_list[i], SIGKILL) == 0) killed++;
  return killed;
}

/* ---- one call ---- */

/* A child that copies `size` bytes from `from` into a new pipe and ends; its read end, or -1. */
static int feeder(int from, const char *bytes, unsigned long long size, pid_t *child) {
  int ends[2];
  if (pipe2(ends, O_CLOEXEC) < 0) return -1;
  *child = fork();
  if (*child < 0) return -1;
  if (*child == 0) {
    /* Nothing of the call's but its two ends: a feeder left behind must not hold its output or status open. */
    for (int fd = 3; fd < 1024; fd++)
      if (fd != from && fd != ends[1]) close(fd);
    char buf[65536];
    while (size > 0) {
      size_t want = size < sizeof buf ? (size_t)size : sizeof buf;
      ssize_t n = bytes != NULL ? (ssize_t)want : read(from, buf, want);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      if (write_all(ends[1], bytes != NULL ? bytes : buf, (size_t)n) < 0) break;
      if (bytes != NULL) bytes += n;
      size -= (unsigned long long)n;
    }
    _exit(0);
  }
  close(ends[1]);
  return ends[0];
}

/* `fd` as descriptor `target` of the command (dup2 onto itself would keep close-on-exec). */
static int put(int fd, int target) {
  return fd == target ? fcntl(fd, F_SETFD, 0) : dup2(fd, target);
}

static int parse_count(const char *text, unsigned long long *out) {
  if (*text == 0) { *out = 0; return 0; }
  char *end;
  errno = 0;
  *out = strtoull(text, &end, 10);
  return errno || *end ? -1 : 0;
}

/*
 * The wrapper's work: stdin `in` (header first), stdout `out`, stderr `err`.
 * Returns the status the wrapper would exit with.
 */
static int run_call(const char *shell, const char *workdir, const char *command, int in, int out, int err) {
  char header[256];
  size_t len = 0;
  for (;;) {
    if (len == sizeof header - 1 || read_exact(in, header + len, 1) != 1) return HEADER_STATUS;
    if (header[len] == '\n') break;
    len++;
  }
  header[len] = 0;
  char *key = strtok(header, " "), *c_text = strtok(NULL, " "), *i_text = strtok(NULL, "");
  unsigned long long long_size = 0, input_size = 0;
  if (key == NULL || parse_count(c_text ? c_text : "", &long_size) < 0 || parse_count(i_text ? i_text : "", &input_size) < 0) return HEADER_STATUS;
  char *long_command = NULL;
  if (long_size > 0) {
    long_command = malloc(long_size + 1);
    if (long_command == NULL || read_exact(in, long_command, long_size) != (ssize_t)long_size) return HEADER_STATUS;
    /* bash's `read` drops NUL bytes */
    size_t kept = 0;
    for (size_t i = 0; i < long_size; i++)
      if (long_command[i] != 0) long_command[kept++] = long_command[i];
    long_command[kept] = 0;
    long_size = kept;
  }
  char start_dir[4096];
  if (getcwd(start_dir, sizeof start_dir) == NULL) start_dir[0] = 0;
  if (chdir(workdir) < 0) {
    struct stat st;
    const char *why = stat(workdir, &st) < 0 ? "missing" : !S_ISDIR(st.st_mode) ? "notdir" : "denied";
    dprintf(err, "\037dsh-status:%s:workdir:%s\037", key, why);
    return WORKDIR_STATUS;
  }
  const char *tag_value = env_find(TAG_VAR, NULL);
  char *tag = strdup(tag_value ? tag_value : "");
  size_t tag_len = strlen(tag), suffix_len = strlen(WRAPPER_TAG_SUFFIX);
  if (tag_len >= suffix_len && strcmp(tag + tag_len - suffix_len, WRAPPER_TAG_SUFFIX) == 0) tag[tag_len - suffix_len] = 0;
  env_set(TAG_VAR, tag);
  set_shell_level();
  env_set("PWD", workdir);
  if (start_dir[0]) env_set("OLDPWD", start_dir);
  char *program = find_program(shell);
  env_set("_", program != NULL ? program : shell);

  pid_t helpers[2];
  int helper_count = 0;
  int command_in = -1, long_in = -1;
  if (input_size > 0) {
    command_in = feeder(in, NULL, input_size, &helpers[helper_count]);
    if (command_in >= 0) helper_count++;
  } else {
    command_in = open("/dev/null", O_RDONLY | O_CLOEXEC);
  }
  const char *script = command;
  if (long_size > 0) {
    long_in = feeder(-1, long_command, long_size, &helpers[helper_count]);
    if (long_in >= 0) helper_count++;
    script = "eval \"$(cat <&3)\" 3<&-";
  } else {
    long_in = open("/dev/null", O_RDONLY | O_CLOEXEC);
  }
  if (command_in < 0 || long_in < 0) return 1;
  pid_t child = fork();
  if (child < 0) return 1;
  if (child == 0) {
    setpgid(0, 0);
    /* The holder started us in the background, so SIGINT and SIGQUIT come ignored; a job the wrapper's
       bash starts under job control gets them back at their default, and so does the command here. */
    signal(SIGINT, SIG_DFL);
    signal(SIGQUIT, SIG_DFL);
    if (put(command_in, 0) < 0 || put(out, 1) < 0 || put(err, 2) < 0 || put(long_in, 3) < 0) _exit(1);
    char *argv[] = { (char *)shell, "-c", (char *)script, NULL };
    if (program == NULL) {
      dprintf(2, "%s: line 1: %s: command not found\n", shell, shell);
      _exit(127);
    }
    execve(program, argv, env);
    int code = errno == ENOENT ? 127 : 126;
    dprintf(2, "%s: line 1: %s: %s\n", shell, program, strerror(errno));
    _exit(code);
  }
  setpgid(child, child);
  close(command_in);
  close(long_in);
  int wait_status, status;
  while (waitpid(child, &wait_status, 0) < 0)
    if (errno != EINTR) return 1;
  if (WIFSIGNALED(wait_status)) {
    status = 128 + WTERMSIG(wait_status);
    dprintf(err, "\037dsh-status:%s:signal:%d\037", key, WTERMSIG(wait_status));
  } else {
    status = WEXITSTATUS(wait_status);
  }
  for (int i = 0; i < helper_count; i++) kill(helpers[i], SIGKILL);
  int left = kill_leftovers(child, tag);
  kill(-child, SIGKILL);
  for (int i = 0; i < helper_count; i++) waitpid(helpers[i], NULL, 0);
  dprintf(err, "\037dsh-status:%s:left:%d\037", key, left);
  return status;
}

/*
 * Blanks the tag in this process's own environment block, which is what
 * /proc/<pid>/environ shows: the status writer is not the wrapper, and a
 * kill by the wrapper's tag must not reach it (the child keeps its copy).
 */
static void forget_tag(void) {
  for (char **e = environ; *e != NULL; e++)
    if (strncmp(*e, TAG_VAR "=", sizeof TAG_VAR) == 0) memset(*e, 0, strlen(*e));
}

static int open_in(const char *dir, const char *id, const char *suffix, int flags) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s%s", dir, id, suffix);
  return open(path, flags | O_CLOEXEC);
}

int main(int argc, char **argv) {
  if (argc == 2 && strcmp(argv[1], "--version") == 0) {
    say(1, VERSION "\n");
    return 0;
  }
  if (argc != 3) return 2;
  /* The holder's `ctl` is not the call's. */
  close(3);
  const char *dir = argv[1], *id = argv[2];
  int status_fd = open_in(dir, id, ".s", O_WRONLY);
  if (status_fd < 0) return 1;
  char request_path[4096];
  snprintf(request_path, sizeof request_path, "%s/%s.q", dir, id);
  size_t size;
  char *request = read_file(request_path, &size);
  char *fields[3];
  size_t at = 0, field_count = 0;
  while (request != NULL && at < size && field_count < 3) {
    fields[field_count++] = request + at;
    at += strlen(request + at) + 1;
  }
  int in = -1, out = -1, err = -1;
  if (field_count == 3) {
    in = open_in(dir, id, ".i", O_RDONLY);
    if (in >= 0) out = open_in(dir, id, ".o", O_WRONLY);
    if (out >= 0) err = open_in(dir, id, ".e", O_WRONLY);
  }
  if (err < 0) {
    say(status_fd, UNSTARTED "\n");
    return 1;
  }
  say(status_fd, OPENED "\n");
  /* The holder's environment without what its bash set, then the call's variables. */
  for (char **e = environ; *e != NULL; e++) env_put(*e);
  env_unset("PWD");
  env_unset("OLDPWD");
  env_unset("SHLVL");
  env_unset("_");
  while (at < size) {
    char *entry = request + at, *equals = strchr(entry, '=');
    at += strlen(entry) + 1;
    if (equals != NULL && valid_name(entry, (size_t)(equals - entry))) env_put(entry);
  }
  /*
   * Two processes, as the bash path has: this one writes the status (the
   * holder's subshell there), its child does the wrapper's work under the
   * wrapper's tag. A stop that kills the wrapper by its tag as a last resort
   * (a command that stopped it) then still gets a status, 128+9.
   */
  pid_t wrapper = fork();
  if (wrapper < 0) {
    say(status_fd, "1\n");
    return 1;
  }
  if (wrapper == 0) _exit(run_call(fields[0], fields[1], fields[2], in, out, err));
  close(in);
  close(out);
  close(err);
  forget_tag();
  int wait_status;
  while (waitpid(wrapper, &wait_status, 0) < 0)
    if (errno != EINTR) return 1;
  int status = WIFSIGNALED(wait_status) ? 128 + WTERMSIG(wait_status) : WEXITSTATUS(wait_status);
  dprintf(status_fd, "%d\n", status);
  return 0;
}

/*
 * The floor of a time search on this machine, for scripts/bench/fs-search.ts: the same kernel work
 * as `mcpkit call fs.search_by_time` (getdents64 over every directory, one statx per entry relative
 * to its open directory in inode order, symbolic links not followed) in compiled C on two threads, the count of
 * files modified at or after FROM printed and nothing else. No JavaScript, no runtime start, no
 * ranking or output: what no program on two threads can beat by much, so the distance from it is
 * what mcpkit's own work costs.
 *
 *   cc -O2 -pthread -o fs-floor fs-floor.c && ./fs-floor ROOT FROM_UNIX_SECONDS [THREADS]
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

struct pending { char *path; struct pending *next; };

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t more = PTHREAD_COND_INITIALIZER;
static struct pending *queue;
static int busy; /* threads listing a directory: the walk is over when none is and the queue is empty */
static long long from_seconds;
static long matches;

static void push(char *path) {
  struct pending *item = malloc(sizeof *item);
  item->path = path;
  pthread_mutex_lock(&lock);
  item->next = queue;
  queue = item;
  pthread_cond_signal(&more);
  pthread_mutex_unlock(&lock);
}

/* The next directory to list, or NULL when the walk is over. */
static char *pop(void) {
  pthread_mutex_lock(&lock);
  busy--;
  while (!queue && busy > 0) pthread_cond_wait(&more, &lock);
  char *path = NULL;
  if (queue) {
    struct pending *item = queue;
    queue = item->next;
    path = item->path;
    free(item);
    busy++;
  } else {
    pthread_cond_broadcast(&more);
  }
  pthread_mutex_unlock(&lock);
  return path;
}

/*
 * Sorts `count` keys (inode number << 16 | offset in the listing) ascending, as mcpkit's walk does
 * (native-walk.c `sort_keys`, a heapsort with no callback: qsort's took 3% more CPU here).
 */
static void sort_keys(unsigned long long *keys, int n) {
  for (int start = n / 2 - 1, end = n; end > 1;) {
    int at;
    unsigned long long key;
    if (start >= 0) {
      at = start--;
      key = keys[at];
    } else {
      key = keys[--end];
      keys[end] = keys[0];
      at = 0;
    }
    for (;;) {
      int child = 2 * at + 1;
      if (child >= end) break;
      if (child + 1 < end && keys[child + 1] > keys[child]) child++;
      if (keys[child] <= key) break;
      keys[at] = keys[child];
      at = child;
    }
    keys[at] = key;
  }
}

/* Lists one directory, queueing its subdirectories, then stats its other entries in inode order (as mcpkit's walk). */
static long list(const char *path) {
  int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return 0;
  char buffer[32768];
  unsigned long long keys[sizeof buffer / 24];
  long found = 0;
  size_t length = strlen(path);
  for (;;) {
    long bytes = syscall(SYS_getdents64, fd, buffer, sizeof buffer);
    if (bytes <= 0) break;
    int count = 0;
    for (long at = 0; at < bytes;) {
      struct dirent64 *entry = (struct dirent64 *)(buffer + at);
      const char *name = entry->d_name;
      if (name[0] == '.' && (name[1] == 0 || (name[1] == '.' && name[2] == 0))) {
        at += entry->d_reclen;
        continue;
      }
      if (entry->d_type == DT_DIR) {
        char *child = malloc(length + strlen(name) + 2);
        sprintf(child, "%s/%s", path, name);
        push(child);
      } else {
        keys[count++] = (unsigned long long)entry->d_ino << 16 | (unsigned long long)at;
      }
      at += entry->d_reclen;
    }
    sort_keys(keys, count);
    for (int i = 0; i < count; i++) {
      struct dirent64 *entry = (struct dirent64 *)(buffer + (keys[i] & 0xFFFF));
      struct statx stat;
      if (statx(fd, entry->d_name, AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT, STATX_BASIC_STATS | STATX_BTIME, &stat) != 0)
        continue;
      if (S_ISREG(stat.stx_mode) && stat.stx_mtime.tv_sec >= from_seconds) found++;
    }
  }
  close(fd);
  return found;
}

static void *work(void *unused) {
  (void)unused;
  long found = 0;
  for (char *path; (path = pop()) != NULL; free(path)) found += list(path);
  pthread_mutex_lock(&lock);
  matches += found;
  pthread_mutex_unlock(&lock);
  return NULL;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: fs-floor ROOT FROM_UNIX_SECONDS [THREADS]\n");
    return 2;
  }
  from_seconds = atoll(argv[2]);
  int threads = argc > 3 ? atoi(argv[3]) : 2;
  if (threads < 1 || threads > 64) threads = 2;
  busy = threads; /* each thread's first pop counts it idle */
  push(strdup(argv[1]));
  pthread_t ids[64];
  for (int i = 0; i < threads; i++) pthread_create(&ids[i], NULL, work, NULL);
  for (int i = 0; i < threads; i++) pthread_join(ids[i], NULL);
  printf("%ld\n", matches);
  return 0;
}

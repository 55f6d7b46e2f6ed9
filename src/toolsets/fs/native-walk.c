/*
 * The time search's walk in C, for `native-walk.ts` (see there for when it is used and why).
 *
 * The same walk as `walk.ts`, on a few POSIX threads: every directory is opened relative to its
 * open parent (O_NOFOLLOW|O_DIRECTORY, flags from the caller), listed with getdents64 and each
 * wanted entry stat'ed relative to it with statx (AT_SYMLINK_NOFOLLOW); links are never followed
 * nor reported. Each listing chunk is stat'ed in inode order, not in listing order (a hash order on
 * ext4): inodes made together sit together in the kernel's memory, so the walk takes fewer cache
 * misses (4–5% less CPU on fs-search.ts's trees; GNU fts sorts so for the disk on large directories).
 * An entry whose time passes the search's range (whole seconds: the caller decides the rest) is
 * copied out as a record; ranking stays in JavaScript (`collector.ts`). What cannot
 * make the page is only counted: behind the caller's kept entries, or (`keep`) behind the best
 * `keep` this walk has sent itself, so JavaScript sees about `keep` records, not every match.
 *
 * Compiled at run time by Bun's TinyCC: no headers (declared by hand below), every allocation
 * through malloc/free only (Bun's allocator; glibc's strdup would hand Bun's free a foreign
 * pointer), and no global state (walks can run at once).
 *
 * Record (8-aligned): u32 length, u32 path length, u32 1 for a directory, u32 1 for a name that
 * is not UTF-8, the 256-byte statx result, the path relative to the start (no NUL), padding.
 */
typedef unsigned long size_t;
typedef struct { long long opaque[8]; } mutex_t; /* glibc: 40 bytes (x64) or 48 (arm64); zeroed = default */
typedef struct { long long opaque[8]; } cond_t;  /* glibc: 48 bytes; zeroed = default */
typedef unsigned long thread_t;
typedef struct { int opaque[2]; } condattr_t; /* glibc: 4 bytes */
struct timespec { long tv_sec; long tv_nsec; };

int openat(int fd, const char *path, int flags, ...);
int close(int fd);
long getdents64(int fd, void *buffer, size_t length);
int statx(int fd, const char *path, int flags, unsigned int mask, void *buffer);
void *malloc(size_t size);
void *calloc(size_t count, size_t size);
void free(void *pointer);
void *memcpy(void *to, const void *from, size_t size);
size_t strlen(const char *text);
int *__errno_location(void);
int pthread_create(thread_t *thread, void *attributes, void *(*run)(void *), void *argument);
int pthread_join(thread_t thread, void **result);
int pthread_mutex_lock(mutex_t *mutex);
int pthread_mutex_unlock(mutex_t *mutex);
int pthread_cond_wait(cond_t *cond, mutex_t *mutex);
int pthread_cond_timedwait(cond_t *cond, mutex_t *mutex, const struct timespec *until);
int pthread_cond_signal(cond_t *cond);
int pthread_cond_broadcast(cond_t *cond);
int clock_gettime(int clock, struct timespec *now);
int pthread_condattr_init(condattr_t *attributes);
int pthread_condattr_setclock(condattr_t *attributes, int clock);
int pthread_cond_init(cond_t *cond, const condattr_t *attributes);
#define CLOCK_MONOTONIC 1

#define MAX_THREADS 8
#define MAX_KEEP 100000 /* beyond any page's limit (schema.ts MAX_LIMIT) */
#define DENTS_BYTES 65536
#define MIN_DIRENT 24 /* the smallest linux_dirent64: 19 bytes of header and a NUL, 8-aligned */
/* A chunk's offsets live in the low 16 bits of `order`'s keys: a larger chunk would not compile. */
typedef char dents_offsets_fit_16_bits[DENTS_BYTES <= 65536 ? 1 : -1];
#define STAGE_BYTES 65536
#define OUT_BYTES (1 << 20)
#define COUNTS_BYTES 4096
#define HEADER 16
#define STATX_BYTES 256
#define DT_UNKNOWN 0
#define DT_DIR 4
#define DT_REG 8
#define DT_LNK 10
#define S_IFMT 0170000
#define S_IFDIR 0040000
#define S_IFREG 0100000
#define S_IFLNK 0120000
#define STATX_BTIME 0x800
#define STATX_CTIME_AT 96 /* offset of stx_ctime.tv_sec */
#define EPERM 1
#define EACCES 13
#define EMFILE 24
#define ENFILE 23

/* Slots of `counts`, as native-walk.ts reads them. */
enum { SCANNED_FILES, SCANNED_DIRECTORIES, UNREADABLE, UNDECODABLE_DIRECTORIES, OUT_OF_DESCRIPTORS,
       DEPTH_LIMITED, FINISHED, BEHIND, KEPT_BOUND, SINCE, UNSEARCHABLE_ENTRIES, UNSEARCHABLE_DIRECTORIES,
       COUNT_SLOTS };

struct node { int fd; int refs; int owned; };
/* A directory to read: opened by name relative to its parent, or (parent 0) the caller's open fd itself. */
struct item { struct item *next; struct node *parent; int fd; int depth; int name_at; int length; char path[]; };

struct walk;

/* One thread's buffers and counts (its own row of `counts`: read by native-walk.ts as the walk goes). */
struct local {
  struct walk *w;
  unsigned char *dents, *stage;
  /*
   * One chunk's entries, stat'ed in this order: inode number << 16 | offset in the chunk. The offset
   * fits 16 bits (below); an inode's top 16 bits shift out, which can only disorder the stats, never
   * lead to the wrong entry.
   */
  unsigned long long *order;
  int stage_fill;
  double *counts;
};

/* What the caller asks of a walk, as native-walk.ts `encodeSettings` writes it (the same order and types). */
struct settings {
  int open_flags, statx_flags;
  unsigned int statx_mask;
  int max_depth, note_depth, include_files, include_directories, time_word;
  /*
   * Once the caller keeps `limit` entries it writes counts[0][KEPT_BOUND]: whole seconds before it
   * (behind 1, newest first) or after it (behind -1, oldest first) cannot be kept, so such an entry
   * is only counted (BEHIND), when its time is surely inside the range (count_from, count_to). On a
   * cursor's page (counts[0][SINCE], seconds, is then finite) only if its status changed before
   * paging began; one changed since is dropped (see `settle_behind`).
   */
  int behind;
  int threads; /* how many to start, at most MAX_THREADS (walk.threads counts those that started) */
  /*
   * On a first page sorted by time, the caller's limit (else 0): every record sent whose time is
   * surely in the range and whose name is UTF-8 is surely ranked (kept or counted), so an entry
   * more than a second behind the worst of the best `keep` sent cannot be kept either (`note_sent`).
   */
  int keep;
  int reserved; /* the doubles are 8-aligned */
  double from_seconds, to_seconds, count_from, count_to;
};

struct walk {
  mutex_t lock;
  cond_t work, more, room;
  struct item *queue;
  int busy, running, threads, stop; /* threads: started, of the s.threads asked for */
  struct settings s;
  unsigned char *out;
  int out_fill;
  /* The caller's: where walk_drain copies records to, and the counts (row 0: FINISHED; row 1 + i: thread i's). */
  unsigned char *drained;
  double (*counts)[COUNT_SLOTS];
  thread_t ids[MAX_THREADS];
  struct local locals[MAX_THREADS];
  /*
   * The best `s.keep` whole seconds sent (a min-heap of seconds, or of minus seconds oldest first,
   * under `lock`), and once full the bound they set, in KEPT_BOUND's terms: read without the lock
   * (an aligned double; a stale one only settles less).
   */
  long long *sent_best;
  int sent_count;
  double sent_bound;
};

/* Drops one reference to a directory; the last one closes it (unless it is one of the caller's, never closed here). */
static void release(struct walk *w, struct node *node) {
  pthread_mutex_lock(&w->lock);
  int last = --node->refs == 0;
  pthread_mutex_unlock(&w->lock);
  if (!last) return;
  if (node->owned) close(node->fd);
  free(node);
}

/* Queues a subdirectory to read (holding its parent open); false when memory ran out. */
static int push(struct walk *w, struct node *parent, const char *prefix, int prefix_length, const char *name,
                int depth) {
  int name_length = (int)strlen(name);
  int length = prefix_length ? prefix_length + 1 + name_length : name_length;
  struct item *item = malloc(sizeof(struct item) + length + 1);
  if (!item) return 0;
  if (prefix_length) {
    memcpy(item->path, prefix, prefix_length);
    item->path[prefix_length] = '/';
  }
  memcpy(item->path + length - name_length, name, name_length + 1);
  item->name_at = length - name_length;
  item->length = length;
  item->depth = depth;
  item->parent = parent;
  item->fd = -1;
  pthread_mutex_lock(&w->lock);
  parent->refs++;
  item->next = w->queue;
  w->queue = item;
  pthread_cond_signal(&w->work);
  pthread_mutex_unlock(&w->lock);
  return 1;
}

/* The next directory to read, or 0 when none is left (every thread idle) or the walk stopped. */
static struct item *pop(struct walk *w) {
  pthread_mutex_lock(&w->lock);
  w->busy--;
  while (!w->queue && w->busy > 0 && !w->stop) pthread_cond_wait(&w->work, &w->lock);
  struct item *item = 0;
  if (w->queue && !w->stop) {
    item = w->queue;
    w->queue = item->next;
    w->busy++;
  } else {
    pthread_cond_broadcast(&w->work);
  }
  pthread_mutex_unlock(&w->lock);
  return item;
}

/* Moves the thread's staged records to the shared buffer, waiting while the reader is behind. */
static void flush(struct walk *w, struct local *l) {
  if (l->stage_fill == 0) return;
  pthread_mutex_lock(&w->lock);
  while (w->out_fill + l->stage_fill > OUT_BYTES && !w->stop) pthread_cond_wait(&w->room, &w->lock);
  if (!w->stop) {
    memcpy(w->out + w->out_fill, l->stage, l->stage_fill);
    w->out_fill += l->stage_fill;
    if (w->out_fill >= OUT_BYTES / 4) pthread_cond_signal(&w->more);
  }
  pthread_mutex_unlock(&w->lock);
  l->stage_fill = 0;
}

/* Sorts keys ascending (heapsort: no recursion, no allocation, no callback). */
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

/* "." or "..": a directory's own entries, never walked. */
static int dot_or_dotdot(const char *name) {
  return name[0] == '.' && (name[1] == 0 || (name[1] == '.' && name[2] == 0));
}

/* Whether a name is valid UTF-8 as TextDecoder's fatal mode reads it (no overlongs, surrogates, or above U+10FFFF). */
static int valid_utf8(const unsigned char *s) {
  while (*s) {
    unsigned char c = *s;
    if (c < 0x80) { s++; continue; }
    int n;
    unsigned int low = 0x80, high = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) n = 1;
    else if (c >= 0xE0 && c <= 0xEF) { n = 2; if (c == 0xE0) low = 0xA0; if (c == 0xED) high = 0x9F; }
    else if (c >= 0xF0 && c <= 0xF4) { n = 3; if (c == 0xF0) low = 0x90; if (c == 0xF4) high = 0x8F; }
    else return 0;
    if (s[1] < low || s[1] > high) return 0;
    for (int i = 2; i <= n; i++) if (s[i] < 0x80 || s[i] > 0xBF) return 0;
    s += n + 1;
  }
  return 1;
}

/*
 * An entry behind the kept ones, as collector.ts `consider` settles it: counted, or on a cursor's
 * page dropped when its status changed since paging began (`since`, seconds; ctime in ms is
 * seconds * 1000 + ns / 1e6, which may round up to the next second). False when only the exact
 * times can tell, in the second of `since` itself: the caller decides then.
 */
static int settle_behind(struct walk *w, struct local *l, const unsigned char *stx) {
  double since = w->counts[0][SINCE];
  double changed = (double)*(const long long *)(stx + STATX_CTIME_AT);
  if (changed < since - 1) {
    l->counts[BEHIND]++;
    return 1;
  }
  return changed >= since;
}

/* Records that an entry surely ranked by the caller was sent (see `settings.keep`), tightening `sent_bound`. */
static void note_sent(struct walk *w, long long whole) {
  long long key = w->s.behind > 0 ? whole : -whole;
  long long *heap = w->sent_best;
  pthread_mutex_lock(&w->lock);
  int n = w->sent_count;
  if (n < w->s.keep) {
    for (int at = n; ; ) { /* sift up */
      int parent = (at - 1) / 2;
      if (at == 0 || heap[parent] <= key) { heap[at] = key; break; }
      heap[at] = heap[parent];
      at = parent;
    }
    w->sent_count = ++n;
  } else if (key > heap[0]) {
    for (int at = 0; ; ) { /* sift down */
      int child = 2 * at + 1;
      if (child >= n) { heap[at] = key; break; }
      if (child + 1 < n && heap[child + 1] < heap[child]) child++;
      if (heap[child] >= key) { heap[at] = key; break; }
      heap[at] = heap[child];
      at = child;
    }
  }
  /* A second each way, as the caller's bound: a time just below a second may round up to it in ms. */
  if (n == w->s.keep) w->sent_bound = w->s.behind > 0 ? (double)(heap[0] - 1) : (double)(-heap[0] + 1);
  pthread_mutex_unlock(&w->lock);
}

/*
 * A listed entry statx refused. ENOENT: gone since the listing, nothing to say. EACCES or EPERM: it is
 * there but its directory grants no search (x) permission, so its time cannot be read; counted, so the
 * caller can say why it is missing (read_directory counts the directory once). Only failures get here.
 */
static void stat_failed(struct local *l) {
  int error = *__errno_location();
  if (error == EACCES || error == EPERM) l->counts[UNSEARCHABLE_ENTRIES]++;
}

/* Stats one wanted entry into a staged record; keeps it when its time can be in the range. */
static void stage_entry(struct walk *w, struct local *l, int fd, struct item *dir, const char *name, int is_directory) {
  int name_length = (int)strlen(name);
  int path_length = dir->length ? dir->length + 1 + name_length : name_length;
  int size = (HEADER + STATX_BYTES + path_length + 7) & ~7;
  if (size > STAGE_BYTES) return; /* cannot happen within native-walk.ts's NATIVE_MAX_DEPTH */
  if (l->stage_fill + size > STAGE_BYTES) flush(w, l);
  unsigned char *record = l->stage + l->stage_fill;
  unsigned char *stx = record + HEADER;
  if (statx(fd, name, w->s.statx_flags, w->s.statx_mask, stx) != 0) {
    stat_failed(l);
    return;
  }
  unsigned short mode = *(unsigned short *)(stx + 28);
  if ((mode & S_IFMT) == S_IFLNK) return; /* replaced by a link since the listing */
  unsigned int mask = *(unsigned int *)stx;
  long long whole = *(long long *)(stx + w->s.time_word * 4);
  int exact = -1; /* valid_utf8(name), worked out once, when first needed */
  /* A birth time missing, or at or before 1970, is unknown to collector.ts (knownBirth): its call. */
  if (w->s.time_word != 20 || ((mask & STATX_BTIME) && whole > 0)) {
    double seconds = (double)whole;
    if (seconds < w->s.from_seconds || seconds >= w->s.to_seconds) return;
    /* A name that is not UTF-8 always goes to the caller, which counts every such entry. */
    if (w->s.behind && seconds >= w->s.count_from && seconds < w->s.count_to &&
        (exact = valid_utf8((const unsigned char *)name))) {
      double bound = w->counts[0][KEPT_BOUND], sent = w->sent_bound;
      if (w->s.behind > 0 ? sent > bound : sent < bound) bound = sent;
      if ((w->s.behind > 0 ? seconds < bound : seconds > bound) && settle_behind(w, l, stx)) return;
      if (w->s.keep > 0) note_sent(w, whole);
    }
  }
  unsigned int *header = (unsigned int *)record;
  header[0] = size;
  header[1] = path_length;
  header[2] = is_directory;
  header[3] = !(exact >= 0 ? exact : valid_utf8((const unsigned char *)name));
  char *path = (char *)stx + STATX_BYTES;
  if (dir->length) {
    memcpy(path, dir->path, dir->length);
    path[dir->length] = '/';
  }
  memcpy(path + path_length - name_length, name, name_length);
  l->stage_fill += size;
}

/* One listed entry: queue it (a subdirectory), count it, and stage it when it is wanted. */
static void sort_entry(struct walk *w, struct local *l, struct node *node, struct item *dir, const char *name,
                       int type) {
  if (type == DT_UNKNOWN) {
    /* This file system does not say: ask the inode (into the stage, overwritten later). */
    if (l->stage_fill + HEADER + STATX_BYTES > STAGE_BYTES) flush(w, l);
    unsigned char *stx = l->stage + l->stage_fill + HEADER;
    if (statx(node->fd, name, w->s.statx_flags, w->s.statx_mask, stx) != 0) {
      stat_failed(l); /* of unknown type, so left out whatever it is */
      return;
    }
    int format = *(unsigned short *)(stx + 28) & S_IFMT;
    type = format == S_IFDIR ? DT_DIR : format == S_IFREG ? DT_REG : format == S_IFLNK ? DT_LNK : 1;
  }
  if (type == DT_LNK) return; /* never followed, never reported */
  if (type == DT_DIR) {
    if (dir->depth < w->s.max_depth) {
      if (!valid_utf8((const unsigned char *)name)) {
        l->counts[UNDECODABLE_DIRECTORIES]++;
        return;
      }
      if (!push(w, node, dir->path, dir->length, name, dir->depth + 1)) l->counts[UNREADABLE]++;
    } else if (w->s.note_depth) {
      l->counts[DEPTH_LIMITED] = 1;
    }
    if (w->s.include_directories) stage_entry(w, l, node->fd, dir, name, 1);
    return;
  }
  l->counts[SCANNED_FILES]++;
  if (w->s.include_files && type == DT_REG) stage_entry(w, l, node->fd, dir, name, 0);
}

/* Opens (unless the caller gave it open), lists and sorts one directory. */
static void read_directory(struct walk *w, struct local *l, struct item *dir) {
  int fd = dir->fd;
  if (dir->parent) {
    fd = openat(dir->parent->fd, dir->path + dir->name_at, w->s.open_flags);
    int error = *__errno_location();
    release(w, dir->parent);
    if (fd < 0) {
      l->counts[UNREADABLE]++;
      if (error == EMFILE || error == ENFILE) l->counts[OUT_OF_DESCRIPTORS] = 1;
      return;
    }
  }
  struct node *node = malloc(sizeof(struct node));
  if (!node) {
    if (dir->parent) close(fd);
    l->counts[UNREADABLE]++;
    return;
  }
  node->fd = fd;
  node->refs = 1;
  node->owned = dir->parent != 0;
  l->counts[SCANNED_DIRECTORIES]++; /* also when empty, as walk.ts counts */
  double unsearchable = l->counts[UNSEARCHABLE_ENTRIES];
  for (int chunks = 0; !w->stop; chunks++) {
    long length = getdents64(fd, l->dents, DENTS_BYTES);
    if (length < 0) {
      if (chunks == 0) l->counts[SCANNED_DIRECTORIES]--;
      l->counts[UNREADABLE]++;
      break;
    }
    if (length == 0) break;
    int count = 0;
    for (long at = 0; at < length;) {
      unsigned char *entry = l->dents + at;
      l->order[count++] = (*(unsigned long long *)entry << 16) | (unsigned long long)at;
      at += entry[16] | (entry[17] << 8);
    }
    sort_keys(l->order, count);
    for (int i = 0; i < count; i++) {
      unsigned char *entry = l->dents + (l->order[i] & 0xFFFF);
      const char *name = (const char *)entry + 19;
      if (!dot_or_dotdot(name)) sort_entry(w, l, node, dir, name, entry[18]);
    }
    flush(w, l);
  }
  if (l->counts[UNSEARCHABLE_ENTRIES] > unsearchable) l->counts[UNSEARCHABLE_DIRECTORIES]++;
  release(w, node);
}

static void *run(void *argument) {
  struct local *l = argument;
  struct walk *w = l->w;
  l->dents = malloc(DENTS_BYTES);
  l->stage = malloc(STAGE_BYTES);
  l->order = malloc(sizeof(unsigned long long) * (DENTS_BYTES / MIN_DIRENT));
  if (l->dents && l->stage && l->order) {
    for (struct item *dir; (dir = pop(w)) != 0; free(dir)) read_directory(w, l, dir);
  }
  free(l->dents);
  free(l->stage);
  free(l->order);
  pthread_mutex_lock(&w->lock);
  if (!l->dents || !l->stage || !l->order) {
    w->busy--; /* never took a directory: the others go on without it */
    pthread_cond_broadcast(&w->work);
  }
  if (--w->running == 0) pthread_cond_broadcast(&w->more);
  pthread_mutex_unlock(&w->lock);
  return 0;
}

/* Stops the walk (if it still runs), waits for its threads, closes what it opened and frees it; the counts stay. */
void walk_finish(struct walk *w) {
  pthread_mutex_lock(&w->lock);
  /* Left over when the walk ended by itself: no thread could take them (out of memory), so unread. */
  int ended = w->running == 0 && !w->stop;
  w->stop = 1;
  pthread_cond_broadcast(&w->work);
  pthread_cond_broadcast(&w->room);
  pthread_mutex_unlock(&w->lock);
  for (int i = 0; i < w->threads; i++) pthread_join(w->ids[i], 0);
  while (w->queue) {
    struct item *item = w->queue;
    w->queue = item->next;
    if (item->parent) release(w, item->parent);
    if (ended) w->counts[1][UNREADABLE]++;
    free(item);
  }
  free(w->out);
  free(w->sent_best);
  free(w);
}

/* Whether a name can be an entry's own: not empty, "." or "..", and no "/". */
static int entry_name(const char *name) {
  if (name[0] == 0 || dot_or_dotdot(name)) return 0;
  for (; *name; name++)
    if (*name == '/') return 0;
  return 1;
}

/*
 * The caller's directories, from `items`: an int count, then for each the ints fd, whether fd is
 * the directory itself (1; it is read) or its parent (0; the directory is opened by name below
 * it), depth (the level of its entries), path length and where the name starts in the path, then
 * the path relative to the start (padded to 4 bytes). The caller keeps every fd open until
 * walk_finish returns; none is closed here. False when memory ran out (queued ones are freed by walk_finish).
 */
static int queue_items(struct walk *w, const unsigned char *items) {
  const int *header = (const int *)items;
  int count = header[0];
  const unsigned char *at = items + 4;
  for (int i = 0; i < count; i++) {
    const int *fields = (const int *)at;
    int length = fields[3];
    struct item *item = malloc(sizeof(struct item) + length + 1);
    struct node *parent = fields[1] ? 0 : malloc(sizeof(struct node));
    if (!item || (!fields[1] && !parent)) {
      free(item);
      free(parent);
      return 0;
    }
    if (parent) {
      parent->fd = fields[0];
      parent->refs = 1;
      parent->owned = 0;
    }
    item->parent = parent;
    item->fd = fields[1] ? fields[0] : -1;
    item->depth = fields[2];
    item->length = length;
    item->name_at = fields[4];
    memcpy(item->path, at + 20, length);
    item->path[length] = 0;
    at += 20 + ((length + 3) & ~3);
    if (parent && !entry_name(item->path + item->name_at)) {
      /* Never opened: "..", "." or a path could lead out of the parent (native-walk.ts sends none). */
      w->counts[1][UNREADABLE]++;
      free(parent);
      free(item);
      continue;
    }
    item->next = w->queue;
    w->queue = item;
  }
  return 1;
}

/*
 * Starts a walk of the caller's directories (see queue_items) as `settings` ask (copied: the caller's
 * memory may go once this returns); 0 when it cannot. shared is the
 * caller's memory: (MAX_THREADS + 1) rows of COUNT_SLOTS doubles, zeroed, at its start, and
 * OUT_BYTES for records at COUNTS_BYTES.
 */
void *walk_start(const unsigned char *items, const struct settings *settings, unsigned char *shared) {
  struct walk *w = calloc(1, sizeof(struct walk));
  if (!w) return 0;
  w->s = *settings;
  w->counts = (double (*)[COUNT_SLOTS])shared;
  w->drained = shared + COUNTS_BYTES;
  w->out = malloc(OUT_BYTES);
  /* Nothing settled by what was sent until `keep` were (none when keep is 0). */
  w->sent_bound = w->s.behind > 0 ? -1e308 : 1e308;
  if (w->s.keep < 0 || w->s.keep > MAX_KEEP) w->s.keep = 0;
  if (w->s.keep > 0 && !(w->sent_best = malloc(sizeof(long long) * w->s.keep))) w->s.keep = 0;
  /* walk_drain waits on the monotonic clock: a step of the wall clock must not stall it. */
  condattr_t monotonic;
  if (pthread_condattr_init(&monotonic) != 0 || pthread_condattr_setclock(&monotonic, CLOCK_MONOTONIC) != 0 ||
      pthread_cond_init(&w->more, &monotonic) != 0 || !w->out || !queue_items(w, items)) {
    walk_finish(w);
    return 0;
  }
  int threads = w->s.threads;
  if (threads > MAX_THREADS) threads = MAX_THREADS;
  pthread_mutex_lock(&w->lock);
  for (int i = 0; i < threads; i++) {
    struct local *l = &w->locals[w->threads];
    l->w = w;
    l->counts = w->counts[1 + w->threads];
    if (pthread_create(&w->ids[w->threads], 0, run, l) != 0) break;
    w->threads++;
    w->running++;
    w->busy++;
  }
  pthread_mutex_unlock(&w->lock);
  if (w->threads == 0) {
    walk_finish(w);
    return 0;
  }
  return w;
}

/*
 * Waits up to timeout_ms for records (a quarter of the buffer) or the end, then copies what there
 * is to the caller's record area and returns its length; counts[0][FINISHED] is 1 once nothing
 * more will come.
 */
int walk_drain(struct walk *w, int timeout_ms) {
  struct timespec until;
  clock_gettime(CLOCK_MONOTONIC, &until);
  until.tv_sec += timeout_ms / 1000;
  until.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
  if (until.tv_nsec >= 1000000000L) {
    until.tv_sec++;
    until.tv_nsec -= 1000000000L;
  }
  pthread_mutex_lock(&w->lock);
  while (w->running > 0 && w->out_fill < OUT_BYTES / 4 && !w->stop) {
    if (pthread_cond_timedwait(&w->more, &w->lock, &until) != 0) break;
  }
  int length = w->out_fill;
  memcpy(w->drained, w->out, length);
  w->out_fill = 0;
  if (w->running == 0) w->counts[0][FINISHED] = 1;
  pthread_cond_broadcast(&w->room);
  pthread_mutex_unlock(&w->lock);
  return length;
}

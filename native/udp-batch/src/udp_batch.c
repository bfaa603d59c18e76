/*
 * Batched UDP I/O for Node on Linux: one recvmmsg/sendmmsg system call moves a whole batch
 * of datagrams, where node:dgram makes one call per packet and builds objects for each.
 *
 * The JS side owns four buffers and hands them over once (attach):
 *   in       datagram payloads, one fixed-size slot per datagram
 *   inMeta   RECV_META_BYTES per slot: what recv learnt about that datagram (layout below)
 *   out      response payloads, anywhere in it
 *   outMeta  SEND_META_BYTES per response: which received datagram's peer gets which bytes
 * so a batch crosses into C with no per-packet JS objects at all. Peers are addressed by the
 * slot their query arrived in: send() must run before the next recv() reuses the slots.
 *
 * Readiness comes from a libuv poll handle on the node event loop; the JS callback decides how
 * much to read per turn (the poll is level-triggered, so whatever it leaves wakes it again).
 *
 * Multi-byte metadata fields are little-endian whatever the host, so the JS side can use
 * readUInt32LE without asking.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <linux/filter.h>
#include <sched.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <node_api.h>
#include <uv.h>

/* inMeta slot: u32 length | u8 flags | u8 family (4/6) | u16 port | 16 address bytes (network order) | pad */
#define RECV_META_BYTES 32
#define META_LENGTH 0
#define META_FLAGS 4
#define META_FAMILY 5
#define META_PORT 6
#define META_ADDRESS 8
#define FLAG_TRUNCATED 1

/* outMeta entry: u32 receive slot of the peer | u32 offset in out | u32 length */
#define SEND_META_BYTES 12

typedef struct {
  napi_ref ref;
  uint8_t* data;
  size_t length;
} Region;

/* Cache hits answered in C: see the section "Cache hits answered in C" below. */
typedef struct HitCache HitCache;
static void hit_cache_free(napi_env env, HitCache* c);

typedef struct {
  napi_env env;
  int fd;
  uv_poll_t* poll;
  napi_ref self;        /* from napi_wrap: weak, made strong while polling so a live socket is not collected */
  napi_ref callback;
  napi_async_context async_context;
  Region in, in_meta, out, out_meta;
  uint32_t slot_size;
  uint32_t max_batch;
  struct mmsghdr* recv_msgs;
  struct iovec* recv_iov;
  struct sockaddr_storage* peers;
  struct mmsghdr* send_msgs;
  struct iovec* send_iov;
  HitCache* hit_cache; /* NULL until enableHitCache */
} Socket;

#define CHECK(env, call)                                                         \
  do {                                                                           \
    if ((call) != napi_ok) {                                                     \
      const napi_extended_error_info* info_;                                     \
      napi_get_last_error_info((env), &info_);                                   \
      bool pending_;                                                             \
      napi_is_exception_pending((env), &pending_);                               \
      if (!pending_)                                                             \
        napi_throw_error((env), NULL, info_->error_message ? info_->error_message : "node-api call failed"); \
      return NULL;                                                               \
    }                                                                            \
  } while (0)

static napi_value throw_errno(napi_env env, int err, const char* syscall) {
  char message[160];
  snprintf(message, sizeof message, "%s: %s", syscall, strerror(err));
  napi_throw_error(env, uv_err_name(-err), message);
  return NULL;
}

static napi_value throw_closed(napi_env env) {
  napi_throw_error(env, "EBADF", "UDP batch socket is closed");
  return NULL;
}

static void put_u32le(uint8_t* at, uint32_t v) {
  at[0] = (uint8_t)v;
  at[1] = (uint8_t)(v >> 8);
  at[2] = (uint8_t)(v >> 16);
  at[3] = (uint8_t)(v >> 24);
}

static uint32_t get_u32le(const uint8_t* at) {
  return (uint32_t)at[0] | ((uint32_t)at[1] << 8) | ((uint32_t)at[2] << 16) | ((uint32_t)at[3] << 24);
}

static void release_region(napi_env env, Region* r) {
  if (r->ref) napi_delete_reference(env, r->ref);
  r->ref = NULL;
  r->data = NULL;
  r->length = 0;
}

static void free_batch_arrays(Socket* s) {
  free(s->recv_msgs);
  free(s->recv_iov);
  free(s->peers);
  free(s->send_msgs);
  free(s->send_iov);
  s->recv_msgs = NULL;
  s->recv_iov = NULL;
  s->peers = NULL;
  s->send_msgs = NULL;
  s->send_iov = NULL;
  s->max_batch = 0;
}

static void on_poll_closed(uv_handle_t* handle) {
  free(handle);
}

/* Stops the poll and closes the fd; safe to call any number of times, and from the finalizer. */
static void close_fd(Socket* s) {
  if (s->poll) {
    uv_poll_stop(s->poll);
    s->poll->data = NULL;
    uv_close((uv_handle_t*)s->poll, on_poll_closed);
    s->poll = NULL;
  }
  if (s->fd >= 0) {
    close(s->fd);
    s->fd = -1;
  }
}

static void finalize(napi_env env, void* data, void* hint) {
  (void)hint;
  Socket* s = data;
  close_fd(s);
  release_region(env, &s->in);
  release_region(env, &s->in_meta);
  release_region(env, &s->out);
  release_region(env, &s->out_meta);
  if (s->callback) napi_delete_reference(env, s->callback);
  if (s->self) napi_delete_reference(env, s->self);
  free_batch_arrays(s);
  hit_cache_free(env, s->hit_cache);
  free(s);
}

static Socket* unwrap(napi_env env, napi_callback_info info, size_t* argc, napi_value* argv) {
  napi_value self;
  void* data = NULL;
  if (napi_get_cb_info(env, info, argc, argv, &self, NULL) != napi_ok) return NULL;
  if (napi_unwrap(env, self, &data) != napi_ok || !data) {
    napi_throw_type_error(env, NULL, "not a UdpBatchSocket");
    return NULL;
  }
  return data;
}

/* unwrap() of a socket still open: NULL with EBADF thrown once it is closed. */
static Socket* unwrap_open(napi_env env, napi_callback_info info, size_t* argc, napi_value* argv) {
  Socket* s = unwrap(env, info, argc, argv);
  if (s && s->fd < 0) {
    throw_closed(env);
    return NULL;
  }
  return s;
}

static bool arg_uint32(napi_env env, napi_value v, const char* name, uint32_t* out) {
  if (napi_get_value_uint32(env, v, out) != napi_ok) {
    char message[80];
    snprintf(message, sizeof message, "%s must be a number", name);
    napi_throw_type_error(env, NULL, message);
    return false;
  }
  return true;
}

/* new UdpBatchSocket(host: string (IP literal), port, reusePort, receiveBufferBytes, sendBufferBytes) */
static napi_value construct(napi_env env, napi_callback_info info) {
  size_t argc = 5;
  napi_value argv[5], self;
  CHECK(env, napi_get_cb_info(env, info, &argc, argv, &self, NULL));
  if (argc < 5) {
    napi_throw_type_error(env, NULL, "expected (host, port, reusePort, receiveBufferBytes, sendBufferBytes)");
    return NULL;
  }
  char host[INET6_ADDRSTRLEN + 1];
  size_t host_len;
  if (napi_get_value_string_utf8(env, argv[0], host, sizeof host, &host_len) != napi_ok) {
    napi_throw_type_error(env, NULL, "host must be a string");
    return NULL;
  }
  uint32_t port, rcvbuf, sndbuf;
  bool reuse_port;
  if (!arg_uint32(env, argv[1], "port", &port) || !arg_uint32(env, argv[3], "receiveBufferBytes", &rcvbuf) ||
      !arg_uint32(env, argv[4], "sendBufferBytes", &sndbuf))
    return NULL;
  if (napi_get_value_bool(env, argv[2], &reuse_port) != napi_ok) {
    napi_throw_type_error(env, NULL, "reusePort must be a boolean");
    return NULL;
  }
  if (port > 0xffff) {
    napi_throw_range_error(env, NULL, "port out of range");
    return NULL;
  }

  struct sockaddr_storage addr;
  socklen_t addr_len;
  memset(&addr, 0, sizeof addr);
  struct sockaddr_in* v4 = (struct sockaddr_in*)&addr;
  struct sockaddr_in6* v6 = (struct sockaddr_in6*)&addr;
  if (inet_pton(AF_INET, host, &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons((uint16_t)port);
    addr_len = sizeof *v4;
  } else if (inet_pton(AF_INET6, host, &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons((uint16_t)port);
    addr_len = sizeof *v6;
  } else {
    napi_throw_error(env, "EINVAL", "host must be an IPv4 or IPv6 literal");
    return NULL;
  }

  int fd = socket(addr.ss_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return throw_errno(env, errno, "socket");
  int one = 1;
  if (reuse_port && setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one) != 0) {
    int err = errno;
    close(fd);
    return throw_errno(env, err, "setsockopt(SO_REUSEPORT)");
  }
  /* Buffer sizes are wishes: the kernel caps them at net.core.[rw]mem_max, and the defaults work. */
  int size = (int)rcvbuf;
  if (rcvbuf > 0) setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
  size = (int)sndbuf;
  if (sndbuf > 0) setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof size);
  if (bind(fd, (struct sockaddr*)&addr, addr_len) != 0) {
    int err = errno;
    close(fd);
    return throw_errno(env, err, "bind");
  }

  Socket* s = calloc(1, sizeof *s);
  if (!s) {
    close(fd);
    napi_throw_error(env, "ENOMEM", "out of memory");
    return NULL;
  }
  s->env = env;
  s->fd = fd;
  if (napi_wrap(env, self, s, finalize, NULL, &s->self) != napi_ok) {
    close(fd);
    free(s);
    napi_throw_error(env, NULL, "napi_wrap failed");
    return NULL;
  }
  return self;
}

/* The bound port (the kernel's pick when bound to port 0). */
static napi_value local_port(napi_env env, napi_callback_info info) {
  size_t argc = 0;
  Socket* s = unwrap_open(env, info, &argc, NULL);
  if (!s) return NULL;
  struct sockaddr_storage addr;
  socklen_t len = sizeof addr;
  if (getsockname(s->fd, (struct sockaddr*)&addr, &len) != 0) return throw_errno(env, errno, "getsockname");
  uint16_t port = addr.ss_family == AF_INET6 ? ((struct sockaddr_in6*)&addr)->sin6_port : ((struct sockaddr_in*)&addr)->sin_port;
  napi_value result;
  CHECK(env, napi_create_uint32(env, ntohs(port), &result));
  return result;
}

static bool take_region(napi_env env, napi_value value, const char* name, size_t at_least, Region* r) {
  bool is_typed;
  napi_typedarray_type type;
  size_t length;
  void* data;
  if (napi_is_typedarray(env, value, &is_typed) != napi_ok || !is_typed ||
      napi_get_typedarray_info(env, value, &type, &length, &data, NULL, NULL) != napi_ok || type != napi_uint8_array) {
    char message[80];
    snprintf(message, sizeof message, "%s must be a Buffer", name);
    napi_throw_type_error(env, NULL, message);
    return false;
  }
  if (length < at_least) {
    char message[120];
    snprintf(message, sizeof message, "%s holds %zu bytes, needs at least %zu", name, length, at_least);
    napi_throw_range_error(env, NULL, message);
    return false;
  }
  release_region(env, r);
  if (napi_create_reference(env, value, 1, &r->ref) != napi_ok) return false;
  r->data = data;
  r->length = length;
  return true;
}

/* attach(in, inMeta, out, outMeta, slotSize, maxBatch): the buffers every later recv/send uses. */
static napi_value attach(napi_env env, napi_callback_info info) {
  size_t argc = 6;
  napi_value argv[6];
  Socket* s = unwrap_open(env, info, &argc, argv);
  if (!s) return NULL;
  if (argc < 6) {
    napi_throw_type_error(env, NULL, "expected (in, inMeta, out, outMeta, slotSize, maxBatch)");
    return NULL;
  }
  uint32_t slot_size, max_batch;
  if (!arg_uint32(env, argv[4], "slotSize", &slot_size) || !arg_uint32(env, argv[5], "maxBatch", &max_batch)) return NULL;
  if (slot_size == 0 || max_batch == 0 || max_batch > 1024) {
    napi_throw_range_error(env, NULL, "slotSize must be > 0 and maxBatch in 1..1024");
    return NULL;
  }
  if (!take_region(env, argv[0], "in", (size_t)slot_size * max_batch, &s->in) ||
      !take_region(env, argv[1], "inMeta", (size_t)RECV_META_BYTES * max_batch, &s->in_meta) ||
      !take_region(env, argv[2], "out", 1, &s->out) ||
      !take_region(env, argv[3], "outMeta", (size_t)SEND_META_BYTES * max_batch, &s->out_meta))
    return NULL;

  free_batch_arrays(s);
  hit_cache_free(env, s->hit_cache); /* sized for the previous buffers */
  s->hit_cache = NULL;
  s->recv_msgs = calloc(max_batch, sizeof *s->recv_msgs);
  s->recv_iov = calloc(max_batch, sizeof *s->recv_iov);
  s->peers = calloc(max_batch, sizeof *s->peers);
  s->send_msgs = calloc(max_batch, sizeof *s->send_msgs);
  s->send_iov = calloc(max_batch, sizeof *s->send_iov);
  if (!s->recv_msgs || !s->recv_iov || !s->peers || !s->send_msgs || !s->send_iov) {
    free_batch_arrays(s);
    napi_throw_error(env, "ENOMEM", "out of memory");
    return NULL;
  }
  s->slot_size = slot_size;
  s->max_batch = max_batch;
  for (uint32_t i = 0; i < max_batch; i++) {
    s->recv_iov[i].iov_base = s->in.data + (size_t)i * slot_size;
    s->recv_iov[i].iov_len = slot_size;
    s->recv_msgs[i].msg_hdr.msg_iov = &s->recv_iov[i];
    s->recv_msgs[i].msg_hdr.msg_iovlen = 1;
    s->recv_msgs[i].msg_hdr.msg_name = &s->peers[i];
    s->send_msgs[i].msg_hdr.msg_iov = &s->send_iov[i];
    s->send_msgs[i].msg_hdr.msg_iovlen = 1;
  }
  return NULL;
}

static void record_peer(Socket* s, uint32_t slot) {
  uint8_t* meta = s->in_meta.data + (size_t)slot * RECV_META_BYTES;
  const struct sockaddr_storage* peer = &s->peers[slot];
  memset(meta + META_FAMILY, 0, RECV_META_BYTES - META_FAMILY);
  if (peer->ss_family == AF_INET) {
    const struct sockaddr_in* v4 = (const struct sockaddr_in*)peer;
    uint16_t port = ntohs(v4->sin_port);
    meta[META_FAMILY] = 4;
    meta[META_PORT] = (uint8_t)port;
    meta[META_PORT + 1] = (uint8_t)(port >> 8);
    memcpy(meta + META_ADDRESS, &v4->sin_addr, 4);
  } else if (peer->ss_family == AF_INET6) {
    const struct sockaddr_in6* v6 = (const struct sockaddr_in6*)peer;
    uint16_t port = ntohs(v6->sin6_port);
    meta[META_FAMILY] = 6;
    meta[META_PORT] = (uint8_t)port;
    meta[META_PORT + 1] = (uint8_t)(port >> 8);
    memcpy(meta + META_ADDRESS, &v6->sin6_addr, 16);
  }
}

/*
 * ---- Cache hits answered in C (decision 0116) ----
 *
 * A bounded copy of the responses the JS response cache (libs/dns-server/response-cache.ts)
 * answered from: JS asks, per answer it served from that cache, that it be kept here too
 * (send's store list); recv then answers the same question straight into the send queue and
 * tells JS only which cached answer each hit was (hit list: slot, entry number, tags), so JS still
 * counts and logs every answer without parsing, looking up or copying it.
 *
 * The key and the patches are response-cache.ts's: the question name with ASCII letters
 * folded, qtype and qclass, the EDNS variant (EDNS or not, DO, the UDP size limit); a hit
 * copies the stored response (ID 0, RD and CD clear, name folded) and patches the ID, the RD
 * and CD bits and the name's case from the query. The hash is response-cache.ts's too, so JS
 * knows the entry number (the table slot, hit_entry_of) a store goes to without asking.
 *
 * Table: direct-mapped, HIT_SLOTS slots of (hash + 1, variant, record position). Records
 * (length and name end, then the response) are appended to a ring arena; a record is valid
 * while the arena has not come round over it, so memory is fixed and nothing is freed. A new
 * index version (JS passes it to every recv) empties the cache by moving the arena's head a
 * whole turn: every record is then out of date.
 */
#define HIT_SLOT_BITS 17
#define HIT_SLOTS (1u << HIT_SLOT_BITS)
#define HIT_ARENA_BYTES (4u * 1024 * 1024)
#define HIT_HEADER 12
#define HIT_QTYPE_OPT 41
#define HIT_MIN_UDP 512
#define HIT_MAX_UDP 1232
#define HIT_FLAG_EDNS 1
#define HIT_FLAG_DO 2
/*
 * JS's words about a kept answer (tags), handed back with each hit so JS need not read its own
 * objects for it: what it counts and logs (see dns-server.ts, answeredBelow).
 */
#define HIT_TAGS 3
/* hits buffer: u32 count, then per hit u32 slot | flags << 16, u32 entry number, the entry's tags */
#define HIT_LIST_HEADER 4
#define HIT_LIST_ENTRY (8 + 4 * HIT_TAGS)
/*
 * stores buffer: per store u32 slot, u32 offset in out, u32 length, u32 entry number, the tags.
 * Slot HIT_RETAG: only the tags of what the entry holds change.
 */
#define HIT_STORE_ENTRY (16 + 4 * HIT_TAGS)
#define HIT_RETAG 0xffffffffu
/* A record in the arena: u32 name end | length << 16, the tags, then the response. */
#define HIT_RECORD_HEADER (4 + 4 * HIT_TAGS)
#define FLAG_ANSWERED 2

typedef struct {
  uint32_t key; /* hash + 1; 0: empty */
  uint32_t variant;
  uint64_t at; /* absolute arena position of the record */
} HitSlot;

typedef struct {
  uint32_t hash, variant, name_end, flags; /* flags: HIT_FLAG_*; name_end 0: not plain */
} HitQuestion;

struct HitCache {
  HitSlot* slots;
  uint8_t* arena;
  uint64_t head; /* absolute position of the next record; starts a turn in, so head - ARENA never wraps */
  int64_t version;
  uint32_t max_response;
  Region hits, stores;
  HitQuestion* questions; /* per receive slot, scratch of one recv */
};

/* The hit and store lists are read and written by JS as Uint32Arrays: host byte order. */
static inline uint32_t get_u32h(const uint8_t* at) {
  uint32_t v;
  memcpy(&v, at, 4);
  return v;
}

static inline void put_u32h(uint8_t* at, uint32_t v) {
  memcpy(at, &v, 4);
}

/* ASCII letters to lowercase, every other byte as it is (response-cache.ts's FOLD). */
static inline uint8_t hit_fold(uint8_t c) {
  return (uint8_t)((unsigned)(c - 'A') < 26u ? c | 0x20 : c);
}

/* response-cache.ts's lookup() up to the hash: the question's key when the query is plain, else name_end 0. */
static void hit_question(const uint8_t* msg, uint32_t length, HitQuestion* q) {
  q->name_end = 0;
  if (length < HIT_HEADER + 5) return;
  if ((msg[2] & 0xf8) != 0 || msg[4] != 0 || msg[5] != 1 || msg[6] != 0 || msg[7] != 0 || msg[8] != 0 || msg[9] != 0 ||
      msg[10] != 0)
    return;
  uint8_t additional = msg[11];
  if (additional > 1) return;
  uint32_t hash = 0x811c9dc5u;
  uint32_t at = HIT_HEADER;
  for (;;) {
    if (at >= length) return;
    uint32_t label = msg[at];
    if (label == 0) break;
    if (label > 63) return;
    uint32_t end = at + 1 + label;
    if (end > length) return;
    hash = (hash ^ label) * 0x01000193u;
    for (uint32_t i = at + 1; i < end; i++) hash = (hash ^ hit_fold(msg[i])) * 0x01000193u;
    at = end;
  }
  uint32_t name_end = at + 1;
  if (name_end - HIT_HEADER > 255) return;
  uint32_t question_end = name_end + 4;
  if (question_end > length) return;
  if (((msg[name_end] << 8) | msg[name_end + 1]) == HIT_QTYPE_OPT) return;
  uint32_t flags = 0, udp_size = 0;
  if (additional == 1) {
    const uint8_t* opt = msg + question_end;
    if (question_end + 11 > length || opt[0] != 0 || opt[1] != 0 || opt[2] != HIT_QTYPE_OPT) return;
    if (opt[6] != 0) return; /* EDNS version other than 0: BADVERS, the full way */
    uint32_t rd_length = ((uint32_t)opt[9] << 8) | opt[10];
    if (question_end + 11 + rd_length != length) return;
    flags = HIT_FLAG_EDNS | ((opt[7] & 0x80) ? HIT_FLAG_DO : 0);
    udp_size = ((uint32_t)opt[3] << 8) | opt[4];
  } else if (question_end != length) {
    return;
  }
  uint32_t limit = HIT_MIN_UDP;
  if (flags & HIT_FLAG_EDNS) limit = udp_size < HIT_MIN_UDP ? HIT_MIN_UDP : udp_size > HIT_MAX_UDP ? HIT_MAX_UDP : udp_size;
  uint32_t variant = limit | ((flags & HIT_FLAG_EDNS) ? 0x10000u : 0) | ((flags & HIT_FLAG_DO) ? 0x20000u : 0);
  uint32_t type_class = ((uint32_t)msg[name_end] << 24) | ((uint32_t)msg[name_end + 1] << 16) |
                        ((uint32_t)msg[name_end + 2] << 8) | msg[name_end + 3];
  hash = (hash ^ type_class) * 0x01000193u;
  hash = ((hash ^ variant) * 0x01000193u) & 0x3fffffffu;
  q->hash = hash;
  q->variant = variant;
  q->name_end = name_end;
  q->flags = flags;
}

/*
 * The table slot (entry number) of a question's hash: its high bits folded into the low ones,
 * since FNV's last multiply leaves the low bits blind to the variant's DO and EDNS bits (16, 17).
 * libs/dns-server/udp-batch.ts (hitEntryOf) computes the same.
 */
static uint32_t hit_entry_of(uint32_t hash) {
  return (hash ^ (hash >> 15)) & (HIT_SLOTS - 1);
}

static bool hit_record_live(const HitCache* c, uint64_t at) {
  return at < c->head && at + HIT_ARENA_BYTES >= c->head;
}

/*
 * Answers the plain queries of slots 0..n-1 whose response is kept, into out at i * max_response
 * for the i-th hit, queued as outMeta entries 0..hits-1; marks their slots answered. Three passes
 * over the batch so the table's and the records' cache lines are fetched together, not one
 * after the other: the kernel's work between batches has evicted them.
 */
static uint32_t hit_cache_answer(Socket* s, HitCache* c, uint32_t n) {
  HitQuestion* qs = c->questions;
  for (uint32_t i = 0; i < n; i++) {
    const uint8_t* meta = s->in_meta.data + (size_t)i * RECV_META_BYTES;
    qs[i].name_end = 0;
    if (meta[META_FLAGS] & FLAG_TRUNCATED) continue;
    hit_question(s->in.data + (size_t)i * s->slot_size, get_u32le(meta + META_LENGTH), &qs[i]);
    if (qs[i].name_end) __builtin_prefetch(&c->slots[hit_entry_of(qs[i].hash)]);
  }
  for (uint32_t i = 0; i < n; i++) {
    if (!qs[i].name_end) continue;
    const HitSlot* slot = &c->slots[hit_entry_of(qs[i].hash)];
    if (slot->key != qs[i].hash + 1 || slot->variant != qs[i].variant || !hit_record_live(c, slot->at)) {
      qs[i].name_end = 0;
      continue;
    }
    __builtin_prefetch(c->arena + (slot->at % HIT_ARENA_BYTES));
    __builtin_prefetch(c->arena + (slot->at % HIT_ARENA_BYTES) + 64);
  }
  uint32_t hits = 0;
  uint8_t* list = c->hits.data + HIT_LIST_HEADER;
  for (uint32_t i = 0; i < n; i++) {
    uint32_t name_end = qs[i].name_end;
    if (!name_end) continue;
    uint32_t entry = hit_entry_of(qs[i].hash);
    const uint8_t* record = c->arena + (c->slots[entry].at % HIT_ARENA_BYTES);
    uint32_t shape = get_u32h(record);
    if ((shape & 0xffff) != name_end) continue;
    uint32_t length = shape >> 16;
    const uint8_t* stored = record + HIT_RECORD_HEADER;
    const uint8_t* query = s->in.data + (size_t)i * s->slot_size;
    uint32_t k = HIT_HEADER;
    while (k < name_end && stored[k] == hit_fold(query[k])) k++;
    if (k < name_end || memcmp(stored + name_end, query + name_end, 4) != 0) continue;
    uint32_t offset = hits * c->max_response;
    uint8_t* response = s->out.data + offset;
    memcpy(response, stored, length);
    response[0] = query[0];
    response[1] = query[1];
    response[2] |= query[2] & 0x01; /* RD */
    response[3] |= query[3] & 0x10; /* CD */
    memcpy(response + HIT_HEADER, query + HIT_HEADER, name_end - HIT_HEADER); /* the name as sent */
    uint8_t* send_entry = s->out_meta.data + (size_t)hits * SEND_META_BYTES;
    put_u32le(send_entry, i);
    put_u32le(send_entry + 4, offset);
    put_u32le(send_entry + 8, length);
    put_u32h(list + (size_t)hits * HIT_LIST_ENTRY, i | (qs[i].flags << 16));
    put_u32h(list + (size_t)hits * HIT_LIST_ENTRY + 4, entry);
    memcpy(list + (size_t)hits * HIT_LIST_ENTRY + 8, record + 4, 4 * HIT_TAGS);
    s->in_meta.data[(size_t)i * RECV_META_BYTES + META_FLAGS] |= FLAG_ANSWERED;
    hits++;
  }
  put_u32h(c->hits.data, hits);
  return hits;
}

/*
 * Keeps the responses of the store list: each entry's slot is emptied first whatever
 * follows, since JS now names another answer by that entry number. A response is kept only
 * when its query is plain, the entry number is the question's slot here, and it fits.
 */
static void hit_cache_store(Socket* s, HitCache* c, uint32_t count) {
  for (uint32_t i = 0; i < count; i++) {
    const uint8_t* entry = c->stores.data + (size_t)i * HIT_STORE_ENTRY;
    uint32_t slot = get_u32h(entry), offset = get_u32h(entry + 4), length = get_u32h(entry + 8),
             number = get_u32h(entry + 12);
    if (number >= HIT_SLOTS) continue;
    HitSlot* target = &c->slots[number];
    if (slot == HIT_RETAG) {
      if (target->key != 0 && hit_record_live(c, target->at))
        memcpy(c->arena + (target->at % HIT_ARENA_BYTES) + 4, entry + 16, 4 * HIT_TAGS);
      continue;
    }
    target->key = 0;
    if (slot >= s->max_batch || (uint64_t)offset + length > s->out.length || length > c->max_response) continue;
    const uint8_t* meta = s->in_meta.data + (size_t)slot * RECV_META_BYTES;
    if (meta[META_FLAGS] & FLAG_TRUNCATED) continue;
    HitQuestion q;
    const uint8_t* query = s->in.data + (size_t)slot * s->slot_size;
    hit_question(query, get_u32le(meta + META_LENGTH), &q);
    if (!q.name_end || hit_entry_of(q.hash) != number || length < q.name_end + 4 || q.name_end > 0xffff) continue;
    uint32_t room = (HIT_RECORD_HEADER + length + 7) & ~7u;
    uint64_t at = c->head;
    if (at % HIT_ARENA_BYTES + room > HIT_ARENA_BYTES) at += HIT_ARENA_BYTES - at % HIT_ARENA_BYTES;
    c->head = at + room;
    uint8_t* record = c->arena + (at % HIT_ARENA_BYTES);
    put_u32h(record, q.name_end | (length << 16));
    memcpy(record + 4, entry + 16, 4 * HIT_TAGS);
    uint8_t* stored = record + HIT_RECORD_HEADER;
    memcpy(stored, s->out.data + offset, length);
    stored[0] = 0;
    stored[1] = 0;
    stored[2] &= (uint8_t)~0x01;
    stored[3] &= (uint8_t)~0x10;
    for (uint32_t k = HIT_HEADER; k < q.name_end; k++) stored[k] = hit_fold(stored[k]);
    target->key = q.hash + 1;
    target->variant = q.variant;
    target->at = at;
  }
}

/* A new index version: every record goes out of date at once (see hit_record_live). */
static void hit_cache_version(HitCache* c, int64_t version) {
  if (version == c->version) return;
  c->version = version;
  c->head += HIT_ARENA_BYTES + (HIT_ARENA_BYTES - c->head % HIT_ARENA_BYTES);
}

/*
 * Zeroed memory for the table and the arena, on 2 MiB pages where the kernel gives them
 * (transparent huge pages, "madvise" mode included): hits reach random places in both, and
 * with 4 KiB pages each was a TLB miss as well as a cache miss.
 */
static void* hit_alloc(size_t bytes) {
  const size_t huge = 2u * 1024 * 1024;
  void* p = NULL;
  if (posix_memalign(&p, huge, bytes) != 0) return NULL;
  madvise(p, bytes, MADV_HUGEPAGE); /* a wish: without it the cache works the same */
  memset(p, 0, bytes);
  return p;
}

static void hit_cache_free(napi_env env, HitCache* c) {
  if (!c) return;
  release_region(env, &c->hits);
  release_region(env, &c->stores);
  free(c->slots);
  free(c->arena);
  free(c->questions);
  free(c);
}

/* recv's part: the index version first (a new one empties the cache), then the hits. */
static bool hit_cache_recv(napi_env env, Socket* s, size_t argc, napi_value* argv, int n) {
  HitCache* c = s->hit_cache;
  put_u32h(c->hits.data, 0);
  napi_valuetype type;
  if (argc < 2 || napi_typeof(env, argv[1], &type) != napi_ok || type == napi_undefined) return true;
  int64_t version;
  if (napi_get_value_int64(env, argv[1], &version) != napi_ok) {
    napi_throw_type_error(env, NULL, "indexVersion must be a number");
    return false;
  }
  hit_cache_version(c, version);
  if (n > 0) hit_cache_answer(s, c, (uint32_t)n);
  return true;
}

/* send's part: the store list's first storeCount entries. */
static bool hit_cache_send(napi_env env, Socket* s, napi_value store_count) {
  uint32_t count;
  if (!arg_uint32(env, store_count, "storeCount", &count)) return false;
  if (count > s->max_batch) {
    napi_throw_range_error(env, NULL, "storeCount exceeds maxBatch");
    return false;
  }
  hit_cache_store(s, s->hit_cache, count);
  return true;
}

/*
 * enableHitCache(hits, stores, maxResponse): after attach(); recv then answers kept responses
 * (hits: u32 count, then HIT_LIST_ENTRY bytes per hit) into out at i * maxResponse, and send
 * keeps those of the store list (HIT_STORE_ENTRY bytes per entry). About 6 MiB per socket.
 */
static napi_value enable_hit_cache(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  Socket* s = unwrap_open(env, info, &argc, argv);
  if (!s) return NULL;
  if (s->max_batch == 0) {
    napi_throw_error(env, NULL, "attach() buffers before enableHitCache()");
    return NULL;
  }
  if (argc < 3) {
    napi_throw_type_error(env, NULL, "expected (hits, stores, maxResponse)");
    return NULL;
  }
  uint32_t max_response;
  if (!arg_uint32(env, argv[2], "maxResponse", &max_response)) return NULL;
  if (max_response == 0 || max_response > 0xffff || (uint64_t)max_response * s->max_batch > s->out.length) {
    napi_throw_range_error(env, NULL, "maxResponse * maxBatch must fit in out");
    return NULL;
  }
  HitCache* c = calloc(1, sizeof *c);
  if (!c) {
    napi_throw_error(env, "ENOMEM", "out of memory");
    return NULL;
  }
  if (!take_region(env, argv[0], "hits", HIT_LIST_HEADER + (size_t)HIT_LIST_ENTRY * s->max_batch, &c->hits) ||
      !take_region(env, argv[1], "stores", (size_t)HIT_STORE_ENTRY * s->max_batch, &c->stores)) {
    hit_cache_free(env, c);
    return NULL;
  }
  c->slots = hit_alloc((size_t)HIT_SLOTS * sizeof *c->slots);
  c->arena = hit_alloc(HIT_ARENA_BYTES);
  c->questions = calloc(s->max_batch, sizeof *c->questions);
  if (!c->slots || !c->arena || !c->questions) {
    hit_cache_free(env, c);
    napi_throw_error(env, "ENOMEM", "out of memory");
    return NULL;
  }
  c->head = HIT_ARENA_BYTES;
  c->version = INT64_MIN;
  c->max_response = max_response;
  put_u32h(c->hits.data, 0);
  hit_cache_free(env, s->hit_cache);
  s->hit_cache = c;
  return NULL;
}

/*
 * recv(max, indexVersion?): datagrams read into slots 0..n-1 (0 when none wait), or -errno on a
 * socket error. With the hit cache enabled and indexVersion given, cached answers are queued
 * (see hit_cache_answer).
 */
static napi_value recv_batch(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2], result;
  Socket* s = unwrap_open(env, info, &argc, argv);
  if (!s) return NULL;
  if (s->max_batch == 0) {
    napi_throw_error(env, NULL, "attach() buffers before recv()");
    return NULL;
  }
  uint32_t want = s->max_batch;
  if (argc >= 1 && !arg_uint32(env, argv[0], "max", &want)) return NULL;
  if (want > s->max_batch) want = s->max_batch;
  for (uint32_t i = 0; i < want; i++) {
    s->recv_msgs[i].msg_hdr.msg_namelen = sizeof(struct sockaddr_storage);
    s->recv_msgs[i].msg_hdr.msg_flags = 0;
  }
  int n;
  do {
    n = want == 0 ? 0 : recvmmsg(s->fd, s->recv_msgs, want, MSG_DONTWAIT, NULL);
  } while (n < 0 && errno == EINTR);
  if (n < 0) n = (errno == EAGAIN || errno == EWOULDBLOCK) ? 0 : -errno;
  for (int i = 0; i < n; i++) {
    uint8_t* meta = s->in_meta.data + (size_t)i * RECV_META_BYTES;
    unsigned int length = s->recv_msgs[i].msg_len;
    put_u32le(meta + META_LENGTH, length);
    meta[META_FLAGS] = (s->recv_msgs[i].msg_hdr.msg_flags & MSG_TRUNC) ? FLAG_TRUNCATED : 0;
    record_peer(s, (uint32_t)i);
  }
  if (s->hit_cache && !hit_cache_recv(env, s, argc, argv, n)) return NULL;
  CHECK(env, napi_create_int32(env, n, &result));
  return result;
}

/*
 * send(count, storeCount?): sends outMeta entries 0..count-1 and returns how many went out. Never blocks:
 * when the socket buffer is full the rest are dropped, as any UDP network may drop them; a
 * datagram the kernel refuses (an unreachable peer, say) is skipped.
 */
static napi_value send_batch(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2], result;
  Socket* s = unwrap_open(env, info, &argc, argv);
  if (!s) return NULL;
  uint32_t count = 0;
  if (argc < 1 || !arg_uint32(env, argv[0], "count", &count)) return NULL;
  /* First, so the entry numbers JS has given out match the table whatever follows. */
  if (s->hit_cache && argc >= 2 && !hit_cache_send(env, s, argv[1])) return NULL;
  if (count > s->max_batch) {
    napi_throw_range_error(env, NULL, "count exceeds maxBatch");
    return NULL;
  }
  for (uint32_t i = 0; i < count; i++) {
    const uint8_t* entry = s->out_meta.data + (size_t)i * SEND_META_BYTES;
    uint32_t slot = get_u32le(entry), offset = get_u32le(entry + 4), length = get_u32le(entry + 8);
    if (slot >= s->max_batch || (uint64_t)offset + length > s->out.length) {
      napi_throw_range_error(env, NULL, "outMeta entry outside the attached buffers");
      return NULL;
    }
    s->send_iov[i].iov_base = s->out.data + offset;
    s->send_iov[i].iov_len = length;
    s->send_msgs[i].msg_hdr.msg_name = &s->peers[slot];
    s->send_msgs[i].msg_hdr.msg_namelen = s->recv_msgs[slot].msg_hdr.msg_namelen;
  }
  uint32_t at = 0, sent = 0;
  while (at < count) {
    int n = sendmmsg(s->fd, s->send_msgs + at, count - at, MSG_DONTWAIT);
    if (n > 0) {
      at += (uint32_t)n;
      sent += (uint32_t)n;
    } else if (errno == EINTR) {
      continue;
    } else if (errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOBUFS) {
      break;
    } else {
      at++;
    }
  }
  CHECK(env, napi_create_uint32(env, sent, &result));
  return result;
}

/* peerAddress(slot): the sender of a received datagram as Node formats addresses ("::ffff:1.2.3.4" included). */
static napi_value peer_address(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1], result;
  Socket* s = unwrap(env, info, &argc, argv);
  if (!s) return NULL;
  uint32_t slot;
  if (argc < 1 || !arg_uint32(env, argv[0], "slot", &slot)) return NULL;
  if (slot >= s->max_batch) {
    napi_throw_range_error(env, NULL, "slot out of range");
    return NULL;
  }
  char text[INET6_ADDRSTRLEN] = "";
  const struct sockaddr_storage* peer = &s->peers[slot];
  if (peer->ss_family == AF_INET)
    inet_ntop(AF_INET, &((const struct sockaddr_in*)peer)->sin_addr, text, sizeof text);
  else if (peer->ss_family == AF_INET6)
    inet_ntop(AF_INET6, &((const struct sockaddr_in6*)peer)->sin6_addr, text, sizeof text);
  CHECK(env, napi_create_string_latin1(env, text, NAPI_AUTO_LENGTH, &result));
  return result;
}

/* peerBytes(slot): a copy of the slot's sender address (sockaddr bytes), for sendTo after the batch. */
static napi_value peer_bytes(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1], result;
  Socket* s = unwrap(env, info, &argc, argv);
  if (!s) return NULL;
  uint32_t slot;
  if (argc < 1 || !arg_uint32(env, argv[0], "slot", &slot)) return NULL;
  if (slot >= s->max_batch) {
    napi_throw_range_error(env, NULL, "slot out of range");
    return NULL;
  }
  void* data;
  CHECK(env, napi_create_buffer_copy(env, s->recv_msgs[slot].msg_hdr.msg_namelen, &s->peers[slot], &data, &result));
  return result;
}

/* sendTo(data, peer): one datagram to a saved peer, now: an answer that was not ready
 * within its batch (an RFC 2136 UPDATE waits for an append). Returns bytes sent or -errno. */
static napi_value send_to(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2], result;
  Socket* s = unwrap_open(env, info, &argc, argv);
  if (!s) return NULL;
  void* data;
  size_t length;
  void* peer;
  size_t peer_length;
  if (argc < 2 || napi_get_buffer_info(env, argv[0], &data, &length) != napi_ok || napi_get_buffer_info(env, argv[1], &peer, &peer_length) != napi_ok ||
      peer_length > sizeof(struct sockaddr_storage)) {
    napi_throw_type_error(env, NULL, "sendTo(data, peer) takes two Buffers");
    return NULL;
  }
  ssize_t sent = sendto(s->fd, data, length, MSG_DONTWAIT, (const struct sockaddr*)peer, (socklen_t)peer_length);
  CHECK(env, napi_create_int32(env, sent < 0 ? -errno : (int32_t)sent, &result));
  return result;
}

static void on_poll(uv_poll_t* handle, int status, int events) {
  (void)status;
  (void)events;
  Socket* s = handle->data;
  if (!s || s->fd < 0 || !s->callback) return;
  napi_env env = s->env;
  napi_handle_scope scope;
  if (napi_open_handle_scope(env, &scope) != napi_ok) return;
  napi_value self, callback, result;
  if (napi_get_reference_value(env, s->self, &self) == napi_ok && self &&
      napi_get_reference_value(env, s->callback, &callback) == napi_ok && callback) {
    /* A throwing callback is an uncaught exception of the process, as with any event listener. */
    if (napi_make_callback(env, s->async_context, self, callback, 0, NULL, &result) == napi_pending_exception) {
      napi_value err;
      napi_get_and_clear_last_exception(env, &err);
      napi_fatal_exception(env, err);
    }
  }
  napi_close_handle_scope(env, scope);
}

/* start(onReadable): calls onReadable() (this = the socket) whenever datagrams wait. */
static napi_value start(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1], name;
  Socket* s = unwrap_open(env, info, &argc, argv);
  if (!s) return NULL;
  napi_valuetype type;
  if (argc < 1 || napi_typeof(env, argv[0], &type) != napi_ok || type != napi_function) {
    napi_throw_type_error(env, NULL, "onReadable must be a function");
    return NULL;
  }
  if (s->poll) {
    napi_throw_error(env, NULL, "already started");
    return NULL;
  }
  uv_loop_t* loop;
  CHECK(env, napi_get_uv_event_loop(env, &loop));
  uv_poll_t* poll = malloc(sizeof *poll);
  if (!poll) {
    napi_throw_error(env, "ENOMEM", "out of memory");
    return NULL;
  }
  int err = uv_poll_init(loop, poll, s->fd);
  if (err != 0) {
    free(poll);
    return throw_errno(env, -err, "uv_poll_init");
  }
  poll->data = s;
  err = uv_poll_start(poll, UV_READABLE, on_poll);
  if (err != 0) {
    uv_close((uv_handle_t*)poll, on_poll_closed);
    return throw_errno(env, -err, "uv_poll_start");
  }
  s->poll = poll;
  CHECK(env, napi_create_reference(env, argv[0], 1, &s->callback));
  CHECK(env, napi_create_string_utf8(env, "UdpBatchSocket", NAPI_AUTO_LENGTH, &name));
  CHECK(env, napi_async_init(env, NULL, name, &s->async_context));
  uint32_t refs;
  CHECK(env, napi_reference_ref(env, s->self, &refs));
  return NULL;
}

/* close(): stops polling and closes the socket; later calls do nothing. */
static napi_value close_socket(napi_env env, napi_callback_info info) {
  size_t argc = 0;
  Socket* s = unwrap(env, info, &argc, NULL);
  if (!s) return NULL;
  bool was_started = s->poll != NULL;
  close_fd(s);
  if (s->callback) {
    napi_delete_reference(env, s->callback);
    s->callback = NULL;
  }
  if (s->async_context) {
    napi_async_destroy(env, s->async_context);
    s->async_context = NULL;
  }
  release_region(env, &s->in);
  release_region(env, &s->in_meta);
  release_region(env, &s->out);
  release_region(env, &s->out_meta);
  free_batch_arrays(s);
  hit_cache_free(env, s->hit_cache);
  s->hit_cache = NULL;
  if (was_started) {
    uint32_t refs;
    napi_reference_unref(env, s->self, &refs);
  }
  return NULL;
}

/*
 * steerByCpu(groupSize): a classic BPF program on this socket's SO_REUSEPORT group that picks
 * the socket whose index is the CPU the datagram's receive path ran on, modulo groupSize
 * (sockets are indexed in bind order). With thread i pinned to CPU i the query is read on
 * the CPU that queued it, without a cross-CPU wake-up. The program belongs to the group:
 * one call from any member serves all; an index past the group's size falls back to the
 * kernel's flow hash. Returns 0, or -errno (not supported, not in a group).
 */
static napi_value steer_by_cpu(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1], result;
  Socket* s = unwrap_open(env, info, &argc, argv);
  if (!s) return NULL;
  uint32_t group;
  if (argc < 1 || !arg_uint32(env, argv[0], "groupSize", &group)) return NULL;
  if (group == 0) {
    napi_throw_range_error(env, NULL, "groupSize must be > 0");
    return NULL;
  }
  struct sock_filter code[] = {
      {BPF_LD | BPF_W | BPF_ABS, 0, 0, (uint32_t)(SKF_AD_OFF + SKF_AD_CPU)}, /* A = this CPU */
      {BPF_ALU | BPF_MOD | BPF_K, 0, 0, group},                               /* A %= group */
      {BPF_RET | BPF_A, 0, 0, 0},                                             /* socket index A */
  };
  struct sock_fprog program = {.len = sizeof code / sizeof code[0], .filter = code};
  int rc = setsockopt(s->fd, SOL_SOCKET, SO_ATTACH_REUSEPORT_CBPF, &program, sizeof program);
  CHECK(env, napi_create_int32(env, rc == 0 ? 0 : -errno, &result));
  return result;
}

/*
 * pinThread(cpus): binds the calling thread (not the process) to these CPUs: one to pin it,
 * all the process may use to let it go again. Returns 0 or -errno.
 */
static napi_value pin_thread(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1], result;
  CHECK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  bool is_array = false;
  uint32_t count = 0;
  if (argc < 1 || napi_is_array(env, argv[0], &is_array) != napi_ok || !is_array ||
      napi_get_array_length(env, argv[0], &count) != napi_ok || count == 0) {
    napi_throw_type_error(env, NULL, "cpus must be a non-empty array of CPU numbers");
    return NULL;
  }
  cpu_set_t set;
  CPU_ZERO(&set);
  for (uint32_t i = 0; i < count; i++) {
    napi_value element;
    uint32_t cpu;
    CHECK(env, napi_get_element(env, argv[0], i, &element));
    if (!arg_uint32(env, element, "cpu", &cpu)) return NULL;
    if (cpu >= CPU_SETSIZE) {
      napi_throw_range_error(env, NULL, "cpu out of range");
      return NULL;
    }
    CPU_SET(cpu, &set);
  }
  /* pid 0 is the calling thread for sched_setaffinity (a Linux thread is a task of its own). */
  int rc = sched_setaffinity(0, sizeof set, &set);
  CHECK(env, napi_create_int32(env, rc == 0 ? 0 : -errno, &result));
  return result;
}

/* allowedCpus(): the CPUs the calling thread may run on (sched_getaffinity), ascending. */
static napi_value allowed_cpus(napi_env env, napi_callback_info info) {
  (void)info;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return throw_errno(env, errno, "sched_getaffinity");
  napi_value result, value;
  CHECK(env, napi_create_array(env, &result));
  uint32_t n = 0;
  for (uint32_t cpu = 0; cpu < CPU_SETSIZE; cpu++) {
    if (!CPU_ISSET(cpu, &set)) continue;
    CHECK(env, napi_create_uint32(env, cpu, &value));
    CHECK(env, napi_set_element(env, result, n++, value));
  }
  return result;
}

static napi_value is_closed(napi_env env, napi_callback_info info) {
  size_t argc = 0;
  napi_value result;
  Socket* s = unwrap(env, info, &argc, NULL);
  if (!s) return NULL;
  CHECK(env, napi_get_boolean(env, s->fd < 0, &result));
  return result;
}

static napi_value init(napi_env env, napi_value exports) {
  napi_property_descriptor methods[] = {
      {"localPort", NULL, local_port, NULL, NULL, NULL, napi_default, NULL},
      {"attach", NULL, attach, NULL, NULL, NULL, napi_default, NULL},
      {"recv", NULL, recv_batch, NULL, NULL, NULL, napi_default, NULL},
      {"send", NULL, send_batch, NULL, NULL, NULL, napi_default, NULL},
      {"peerAddress", NULL, peer_address, NULL, NULL, NULL, napi_default, NULL},
      {"peerBytes", NULL, peer_bytes, NULL, NULL, NULL, napi_default, NULL},
      {"sendTo", NULL, send_to, NULL, NULL, NULL, napi_default, NULL},
      {"start", NULL, start, NULL, NULL, NULL, napi_default, NULL},
      {"close", NULL, close_socket, NULL, NULL, NULL, napi_default, NULL},
      {"isClosed", NULL, is_closed, NULL, NULL, NULL, napi_default, NULL},
      {"steerByCpu", NULL, steer_by_cpu, NULL, NULL, NULL, napi_default, NULL},
      {"enableHitCache", NULL, enable_hit_cache, NULL, NULL, NULL, napi_default, NULL},
  };
  napi_value cls, recv_meta, send_meta;
  CHECK(env, napi_define_class(env, "UdpBatchSocket", NAPI_AUTO_LENGTH, construct, NULL,
                               sizeof methods / sizeof methods[0], methods, &cls));
  CHECK(env, napi_set_named_property(env, exports, "UdpBatchSocket", cls));
  CHECK(env, napi_create_uint32(env, RECV_META_BYTES, &recv_meta));
  CHECK(env, napi_set_named_property(env, exports, "RECV_META_BYTES", recv_meta));
  CHECK(env, napi_create_uint32(env, SEND_META_BYTES, &send_meta));
  CHECK(env, napi_set_named_property(env, exports, "SEND_META_BYTES", send_meta));
  napi_value fn;
  CHECK(env, napi_create_function(env, "pinThread", NAPI_AUTO_LENGTH, pin_thread, NULL, &fn));
  CHECK(env, napi_set_named_property(env, exports, "pinThread", fn));
  CHECK(env, napi_create_function(env, "allowedCpus", NAPI_AUTO_LENGTH, allowed_cpus, NULL, &fn));
  CHECK(env, napi_set_named_property(env, exports, "allowedCpus", fn));
  napi_value hit_slots;
  CHECK(env, napi_create_uint32(env, HIT_SLOTS, &hit_slots));
  CHECK(env, napi_set_named_property(env, exports, "HIT_CACHE_SLOTS", hit_slots));
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)

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
  Socket* s = unwrap(env, info, &argc, NULL);
  if (!s) return NULL;
  if (s->fd < 0) return throw_closed(env);
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
  Socket* s = unwrap(env, info, &argc, argv);
  if (!s) return NULL;
  if (s->fd < 0) return throw_closed(env);
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

/* recv(max): datagrams read into slots 0..n-1 (0 when none wait), or -errno on a socket error. */
static napi_value recv_batch(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1], result;
  Socket* s = unwrap(env, info, &argc, argv);
  if (!s) return NULL;
  if (s->fd < 0) return throw_closed(env);
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
  CHECK(env, napi_create_int32(env, n, &result));
  return result;
}

/*
 * send(count): sends outMeta entries 0..count-1 and returns how many went out. Never blocks:
 * when the socket buffer is full the rest are dropped, as any UDP network may drop them; a
 * datagram the kernel refuses (an unreachable peer, say) is skipped.
 */
static napi_value send_batch(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1], result;
  Socket* s = unwrap(env, info, &argc, argv);
  if (!s) return NULL;
  if (s->fd < 0) return throw_closed(env);
  uint32_t count = 0;
  if (argc < 1 || !arg_uint32(env, argv[0], "count", &count)) return NULL;
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
  Socket* s = unwrap(env, info, &argc, argv);
  if (!s) return NULL;
  if (s->fd < 0) return throw_closed(env);
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
  Socket* s = unwrap(env, info, &argc, argv);
  if (!s) return NULL;
  if (s->fd < 0) return throw_closed(env);
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
  Socket* s = unwrap(env, info, &argc, argv);
  if (!s) return NULL;
  if (s->fd < 0) return throw_closed(env);
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
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)

{
  "targets": [
    {
      "target_name": "udp_batch",
      "sources": ["src/udp_batch.c"],
      "defines": ["NAPI_VERSION=8"],
      "cflags": ["-O2", "-Wall", "-Wextra", "-Werror=implicit-function-declaration"]
    }
  ]
}

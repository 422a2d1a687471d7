{
  "targets": [
    {
      "target_name": "timerfd",
      "sources": ["timerfd.c", "turns.c", "accepts.c"],
      "cflags": ["-O2", "-Wall", "-Wextra"],
      "conditions": [["OS!='linux'", { "type": "none", "sources": [] }]]
    }
  ]
}

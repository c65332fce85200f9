// View state of the attention panel (app/panel_attention.cpp), kept in App.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "attention/reference.h"

namespace app {

struct AttentionViewState {
  int tokens = 24;         // T = S of the short sequence shown (<= 64)
  int head = 0;            // query head shown large
  int layer = 0;           // which layer of the model (hybrids: sliding or full)
  int picture_window = 8;  // W drawn when the model's W does not fit in `tokens`
  unsigned seed = 1;       // q, k, v ~ N(0, 1) from this seed

  // Cache: recomputed only when one of these changes.
  std::string key;                            // shape, window, scale, tokens and seed of `result`
  attn::PrefillResult result;                 // scores / probs [Hq, T, S]
  std::vector<unsigned char> masked;          // [Hq, T, S]: 1 where the mask removed the key
  int q_heads = 0, kv_heads = 0, window = 0;  // of `result`
  bool window_from_model = false;  // false: the model's W >= tokens, picture_window is used
  std::string error;
};

}  // namespace app

// Configuration of one attention layer (LayerShape) and of a whole model (ModelConfig).
//
// Vocabulary (docs/DESIGN.md section 2): B batch, S cached length, Hq query heads, Hkv kv heads,
// G = Hq / Hkv, D head dim, Dv value head dim, W window, Dl latent dim, Dr decoupled RoPE dim.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace attn {

// Attention families. MHA, MQA, GQA and SWA are one grouped computation (G = Hq / Hkv, SWA adds
// a window); MLA is DeepSeek's multi-head latent attention.
enum class Variant { kMha, kMqa, kGqa, kSwa, kMla };

std::string_view variant_name(Variant v);                     // "mha", "mqa", "gqa", "swa", "mla"
std::optional<Variant> parse_variant(std::string_view name);  // lower-case names above
bool is_grouped(Variant v);                                   // every variant but MLA

// The default softmax scale, 1 / sqrt(width of q . k): D for the GQA family, Dl + Dr for MLA's
// absorbed form (docs/DESIGN.md section 2). 0 for a width < 1. Every default scale comes from here.
double default_scale(int qk_width);
// `scale` when it is set (non-zero), else default_scale(qk_width).
inline double resolve_scale(double scale, int qk_width) {
  return scale != 0 ? scale : default_scale(qk_width);
}

enum class LayerKind { kFull, kSliding };
std::string_view layer_kind_name(LayerKind k);  // "full", "sliding"

// One attention layer as a kernel sees it. For MLA (absorbed form) the cache holds one latent
// row of Dl + Dr per token: kv_heads = 1, head_dim = Dl + Dr, value_dim = Dl.
struct LayerShape {
  Variant variant = Variant::kGqa;
  int q_heads = 32;     // Hq
  int kv_heads = 8;     // Hkv (MLA: 1)
  int head_dim = 128;   // D, the query/key width (MLA: Dl + Dr)
  int value_dim = 128;  // Dv (MLA: Dl)
  int latent_dim = 0;   // Dl, MLA only
  int rope_dim = 0;     // Dr, MLA only
  int window = 0;       // W, 0 = full attention (SWA requires W >= 1)
  double scale = 0.0;   // 0 = default: 1/sqrt(D), MLA 1/sqrt(Dl + Dr)

  int group_size() const { return kv_heads > 0 ? q_heads / kv_heads : 0; }  // G
  double effective_scale() const;
  // Throws InputError naming the field: heads and dims in range, Hq divisible by Hkv, MHA
  // means Hkv = Hq, MQA means Hkv = 1, SWA needs a window, MLA needs Dl, Dr and consistent dims.
  void validate() const;
};

// A whole model: the attention shape of its layers plus the layer pattern.
struct ModelConfig {
  std::string name;                 // preset name (llama-3-8b) or the imported file's name
  std::string display_name;         // "Llama-3-8B"
  std::string source;               // where the numbers come from (HF repo id, file path)
  std::string model_type;           // HF model_type, when known
  Variant variant = Variant::kGqa;  // family of the model's attention (swa when all layers slide)
  int num_layers = 0;               // L
  int hidden_size = 0;
  int q_heads = 0;    // Hq
  int kv_heads = 0;   // Hkv (MLA: the number of heads the latent is expanded to = Hq)
  int head_dim = 0;   // D per head (MLA: qk_nope + qk_rope, the naive per-head q/k width)
  int value_dim = 0;  // Dv (MLA: v_head_dim)
  // MLA only.
  int latent_dim = 0;             // Dl = kv_lora_rank
  int rope_dim = 0;               // Dr = qk_rope_head_dim
  int qk_nope_dim = 0;            // qk_nope_head_dim
  int q_lora_rank = 0;            // 0 = no query compression
  int window = 0;                 // W of the sliding layers, 0 = none
  std::vector<LayerKind> layers;  // one entry per layer, size num_layers
  std::int64_t max_seq = 0;       // maximum context (max_position_embeddings); 0 = not stated
  double scale = 0.0;             // softmax scale; 0 = the variant's default
  // What the importer assumed or ignored (an HF class default used for a missing field, a
  // sliding_window switched off by use_sliding_window, ...), one sentence each, for display.
  std::vector<std::string> notes;

  // The shape one layer's decode kernel sees (for MLA the absorbed form).
  LayerShape layer_shape(int layer) const;
  int num_sliding() const;
  bool is_hybrid() const;  // both sliding and full layers
  std::string pattern_description()
      const;              // "all full", "all sliding (W 4096)", "5 sliding : 1 full"
  void validate() const;  // throws InputError naming the field
};

// "What if" mode: the same model with another attention variant. kv_heads is used by GQA
// (group size = Hq / kv_heads), latent_dim / rope_dim by MLA, window by SWA. Converting MLA to
// the grouped family uses D = Dv (DeepSeek's 128), which is how "the same model with MHA" is
// usually counted. Throws InputError when the request does not fit the model.
// Layers: swa makes every layer sliding with `window`; mla makes every layer full; mha, mqa and
// gqa make every layer full unless keep_windows is set (then the model's sliding layers keep
// their window, e.g. Gemma 2 with MQA heads).
struct WhatIf {
  Variant variant = Variant::kGqa;
  int kv_heads = 0;           // GQA / SWA: 0 = keep the model's
  int latent_dim = 512;       // MLA
  int rope_dim = 64;          // MLA
  int window = 4096;          // SWA: applied to every layer
  bool keep_windows = false;  // mha / mqa / gqa: keep the model's sliding layers
};
ModelConfig apply_what_if(const ModelConfig& model, const WhatIf& what_if);

// Limits on absurd values, checked before anything is allocated (shown in --help).
struct Limits {
  static constexpr int kMaxLayers = 1024;
  static constexpr int kMaxHeads = 4096;
  static constexpr int kMaxHeadDim = 4096;
  static constexpr std::int64_t kMaxSeq = std::int64_t(1) << 26;  // 67M tokens
  static constexpr std::int64_t kMaxBatch = 1 << 20;
  static constexpr std::int64_t kMaxConfigBytes = 16ll << 20;  // config.json, settings
  static constexpr std::int64_t kMaxTensorBytes = 16ll << 30;  // one .npy file
};

}  // namespace attn

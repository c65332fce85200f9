// The Compare view: two to four variants or models in columns, each with its KV-cache tape drawn
// to one common scale, the bytes and FLOPs of one decode step of the whole model, its roofline
// time on the chosen GPU (a projection, labelled so), and the measured time of one layer where
// assets/results/ recorded that shape.
#pragma once
#include <optional>
#include <string>

#include "app/app_state.h"

namespace app {

void draw_compare_view(App& app);

// The model of a column: a preset (or the user's base model) with the column's what-if variant.
// nullopt, with `error` set, when the variant does not fit the model.
std::optional<attn::ModelConfig> compare_column_model(const App& app, const CompareColumn& c,
                                                      std::string* error);

}  // namespace app

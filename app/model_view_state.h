// View state of the model panel (app/panel_model.cpp), kept in App.
#pragma once
#include <cstdint>
#include <string>

#include "attention/config.h"

namespace app {

struct ModelViewState {
  // The draft being edited: a copy of App::base that takes each edit; when it validates it
  // becomes the new base, else the message is shown beside the field that was changed.
  attn::ModelConfig draft;
  std::uint64_t draft_of_revision = ~std::uint64_t(0);  // base revision the draft was copied from
  std::string field_error;                              // InputError text of the last rejected edit
  std::string field_with_error;                         // which field it belongs to (its label)
  char import_path[1024] = "";                          // config.json path field
  std::string import_error;                             // shown under the path field
  int local_per_global = 5;  // hybrid pattern editor: N sliding layers per full one
};

}  // namespace app

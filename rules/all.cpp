// The explicit list of rules. Each rules/<category>/<code>_<name>.cpp defines one make_* function.
#include "rules/all.hpp"

namespace perflint {

std::vector<std::unique_ptr<Rule>> make_all_rules() {
  std::vector<std::unique_ptr<Rule>> v;
  v.push_back(make_pfl001());
  v.push_back(make_pfl101());
  v.push_back(make_pfl102());
  v.push_back(make_pfl103());
  v.push_back(make_pfl104());
  v.push_back(make_pfl105());
  v.push_back(make_pfl201());
  v.push_back(make_pfl202());
  v.push_back(make_pfl301());
  v.push_back(make_pfl401());
  v.push_back(make_pfl501());
  v.push_back(make_pfl203());
  v.push_back(make_pfl204());
  v.push_back(make_pfl302());
  v.push_back(make_pfl303());
  v.push_back(make_pfl304());
  v.push_back(make_pfl402());
  v.push_back(make_pfl502());
  v.push_back(make_pfl503());
  v.push_back(make_pfl504());
  v.push_back(make_pfl601());
  v.push_back(make_pfl602());
  v.push_back(make_pfl603());
  v.push_back(make_pfl701());
  v.push_back(make_pfl801());
  return v;
}

}  // namespace perflint

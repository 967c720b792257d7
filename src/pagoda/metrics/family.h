// A metric family: a name, its help text, fixed label names, and one child
// per combination of label values, as prometheus_client's labelled metrics.
// Children are made on first use and rendered in the order they were made,
// each with its labels sorted by name, as prometheus_client renders them.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pagoda/base/check.h"

namespace pagoda::metrics {

class Family {
 public:
  virtual ~Family() = default;
  Family(const Family&) = delete;
  Family& operator=(const Family&) = delete;

  const std::string& name() const { return name_; }
  const std::vector<std::string>& label_names() const { return label_names_; }

  // Appends the family's "# HELP" and "# TYPE" lines and its samples.
  virtual void Render(std::string& out) const = 0;

 protected:
  // At least one label name: prometheus_client renders a family without
  // labels from its single implicit child, which this design never makes.
  Family(std::string name, std::string help, std::vector<std::string> label_names);

  void RenderHeader(std::string& out, std::string_view exposed_name, std::string_view type) const;
  // `sample_name{labels} value`, the labels sorted by name with `le` (for a
  // histogram bucket) sorted among them.
  void RenderSample(std::string& out, std::string_view sample_name, const std::vector<std::string>& label_values,
                    std::optional<std::string_view> le, double value) const;

 private:
  std::string name_;
  std::string help_;
  std::vector<std::string> label_names_;
  std::vector<size_t> sorted_labels_;  // indices into label_names_, by name
};

// A family whose children are `Child`s.
template <typename Child>
class LabeledFamily : public Family {
 public:
  // The child for these label values (one per label name), made on first
  // use. The reference stays valid as long as the family. Thread-safe.
  Child& Labels(const std::vector<std::string>& label_values) {
    PAGODA_CHECK_MSG(label_values.size() == label_names().size(), "one label value per label name");
    std::lock_guard lock(mu_);
    auto [it, inserted] = index_.try_emplace(label_values, nullptr);
    if (inserted) {
      children_.push_back(Entry{label_values, NewChild()});
      it->second = children_.back().child.get();
    }
    return *it->second;
  }

 protected:
  using Family::Family;

  virtual std::unique_ptr<Child> NewChild() const = 0;

  // Calls f(label_values, child) for each child in creation order, holding
  // the family's lock (a child made meanwhile waits for the next render).
  template <typename F>
  void ForEachChild(F&& f) const {
    std::lock_guard lock(mu_);
    for (const Entry& entry : children_) f(entry.label_values, *entry.child);
  }

 private:
  struct Entry {
    std::vector<std::string> label_values;
    std::unique_ptr<Child> child;
  };
  mutable std::mutex mu_;
  std::vector<Entry> children_;
  std::map<std::vector<std::string>, Child*> index_;
};

}  // namespace pagoda::metrics

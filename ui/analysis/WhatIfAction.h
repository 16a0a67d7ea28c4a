#pragma once
// Run › What if…: for an opened trace without a pipescope configuration (a PyTorch
// profiler trace), derives the configuration that reproduces its iterations on the
// simulator (analysis/DerivedConfig.h), loads it into the controls with the profile of
// the trace's GPU, and opens the sweep view on it: batch size x streams for the user's
// own workload.
#include <QObject>
#include <QString>
#include <memory>
#include <optional>

#include "analysis/DerivedConfig.h"

class QAction;

namespace pipescope::ui {

class MainWindow;

class WhatIfAction : public QObject {
  Q_OBJECT
 public:
  explicit WhatIfAction(MainWindow& window);
  QAction* action() const { return action_; }

  /// Derives, loads and opens the sweep; with `start`, starts it too. False (and the
  /// reason shown) when the shown trace has no iterations or is a pipescope run.
  bool trigger(bool start = true, QString* error = nullptr);
  /// The configuration the last trigger() derived.
  const std::optional<DerivedConfig>& derived() const { return derived_; }

 private:
  void onTraceChanged(const std::shared_ptr<Trace>& trace);

  MainWindow& window_;
  QAction* action_;
  std::optional<DerivedConfig> derived_;
};

}  // namespace pipescope::ui

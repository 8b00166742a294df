// The feature gates that kube's configuration defaulting and validation
// read from its process-wide DefaultFeatureGate: VolumeBindingArgs' shape
// is defaulted and allowed only with StorageCapacityScoring on;
// DynamicResourcesArgs' bindingTimeout only with DRADeviceBindingConditions
// and DRAResourceClaimDeviceStatus on (dra_binding_conditions).
//
// Set once at start-up (framework::FeatureGates::ApplyProcessWideSwitches)
// before any configuration is loaded; the gates default to kube-scheduler
// v1.34's (all off).
//
// schema_minor: the minor whose kubescheduler.config.k8s.io/v1 fields
// decode (1.36 added placementGenerate and placementScore, 1.37
// podGroupPostFilter); the newest by default, so that a file can be read in
// full before the minor is chosen. Reads and writes are atomic, so a test may set them too
// (ScopedConfigGates restores the previous value).
#pragma once

namespace ksched::config {

struct ConfigGates {
  bool storage_capacity_scoring = false;
  bool dra_binding_conditions = false;
  int schema_minor = 37;
};

ConfigGates CurrentConfigGates();
void SetConfigGates(const ConfigGates& gates);

// Sets the gates for a scope (tests).
class ScopedConfigGates {
 public:
  explicit ScopedConfigGates(const ConfigGates& gates) : saved_(CurrentConfigGates()) { SetConfigGates(gates); }
  ~ScopedConfigGates() { SetConfigGates(saved_); }
  ScopedConfigGates(const ScopedConfigGates&) = delete;
  ScopedConfigGates& operator=(const ScopedConfigGates&) = delete;

 private:
  ConfigGates saved_;
};

}  // namespace ksched::config

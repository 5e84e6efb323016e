// NVTX v3 injection: NVTX's header-only code dlopens the library named by NVTX_INJECTION64_PATH
// (`seer run` points it at this one) and calls InitializeInjectionNvtx2, which fills NVTX's
// function tables with the entry points of api.cpp.

#define NVTX_NO_IMPL
#include <nvtx3/nvToolsExt.h>

#define SEER_NVTX_API extern "C" __attribute__((visibility("default")))

namespace {

template <typename F>
void set(NvtxFunctionTable table, unsigned size, unsigned id, F* fn) {
  if (id < size && table[id]) *table[id] = reinterpret_cast<NvtxFunctionPointer>(fn);
}

bool fill(const NvtxExportTableCallbacks* cb, NvtxCallbackModule module,
          void (*assign)(NvtxFunctionTable, unsigned)) {
  NvtxFunctionTable table = nullptr;
  unsigned size = 0;
  if (!cb->GetModuleFunctionTable(module, &table, &size) || !table) return false;
  assign(table, size);
  return true;
}

void assign_core(NvtxFunctionTable t, unsigned n) {
  set(t, n, NVTX_CBID_CORE_MarkEx, &nvtxMarkEx);
  set(t, n, NVTX_CBID_CORE_MarkA, &nvtxMarkA);
  set(t, n, NVTX_CBID_CORE_MarkW, &nvtxMarkW);
  set(t, n, NVTX_CBID_CORE_RangeStartEx, &nvtxRangeStartEx);
  set(t, n, NVTX_CBID_CORE_RangeStartA, &nvtxRangeStartA);
  set(t, n, NVTX_CBID_CORE_RangeStartW, &nvtxRangeStartW);
  set(t, n, NVTX_CBID_CORE_RangeEnd, &nvtxRangeEnd);
  set(t, n, NVTX_CBID_CORE_RangePushEx, &nvtxRangePushEx);
  set(t, n, NVTX_CBID_CORE_RangePushA, &nvtxRangePushA);
  set(t, n, NVTX_CBID_CORE_RangePushW, &nvtxRangePushW);
  set(t, n, NVTX_CBID_CORE_RangePop, &nvtxRangePop);
  set(t, n, NVTX_CBID_CORE_NameCategoryA, &nvtxNameCategoryA);
  set(t, n, NVTX_CBID_CORE_NameCategoryW, &nvtxNameCategoryW);
  set(t, n, NVTX_CBID_CORE_NameOsThreadA, &nvtxNameOsThreadA);
  set(t, n, NVTX_CBID_CORE_NameOsThreadW, &nvtxNameOsThreadW);
}

void assign_core2(NvtxFunctionTable t, unsigned n) {
  set(t, n, NVTX_CBID_CORE2_DomainMarkEx, &nvtxDomainMarkEx);
  set(t, n, NVTX_CBID_CORE2_DomainRangeStartEx, &nvtxDomainRangeStartEx);
  set(t, n, NVTX_CBID_CORE2_DomainRangeEnd, &nvtxDomainRangeEnd);
  set(t, n, NVTX_CBID_CORE2_DomainRangePushEx, &nvtxDomainRangePushEx);
  set(t, n, NVTX_CBID_CORE2_DomainRangePop, &nvtxDomainRangePop);
  set(t, n, NVTX_CBID_CORE2_DomainResourceCreate, &nvtxDomainResourceCreate);
  set(t, n, NVTX_CBID_CORE2_DomainResourceDestroy, &nvtxDomainResourceDestroy);
  set(t, n, NVTX_CBID_CORE2_DomainNameCategoryA, &nvtxDomainNameCategoryA);
  set(t, n, NVTX_CBID_CORE2_DomainNameCategoryW, &nvtxDomainNameCategoryW);
  set(t, n, NVTX_CBID_CORE2_DomainRegisterStringA, &nvtxDomainRegisterStringA);
  set(t, n, NVTX_CBID_CORE2_DomainRegisterStringW, &nvtxDomainRegisterStringW);
  set(t, n, NVTX_CBID_CORE2_DomainCreateA, &nvtxDomainCreateA);
  set(t, n, NVTX_CBID_CORE2_DomainCreateW, &nvtxDomainCreateW);
  set(t, n, NVTX_CBID_CORE2_DomainDestroy, &nvtxDomainDestroy);
  set(t, n, NVTX_CBID_CORE2_Initialize, &nvtxInitialize);
}

}  // namespace

SEER_NVTX_API int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get_export_table) {
  if (!get_export_table) return 0;
  const auto* cb =
      static_cast<const NvtxExportTableCallbacks*>(get_export_table(NVTX_ETID_CALLBACKS));
  if (!cb || !cb->GetModuleFunctionTable) return 0;
  return fill(cb, NVTX_CB_MODULE_CORE, &assign_core) &&
                 fill(cb, NVTX_CB_MODULE_CORE2, &assign_core2)
             ? 1
             : 0;
}

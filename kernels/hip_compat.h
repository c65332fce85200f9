// One runtime header for the .hip sources: on AMD (hipcc) it is HIP itself; on NVIDIA (nvcc) it
// maps exactly the hip* names this project uses to their CUDA equivalents. Debian's HIP 5.2
// NVIDIA headers do not compile against CUDA 13, hence this small table instead of them.
// Add a name here only when a kernel file starts to use it.
#pragma once

#if defined(__CUDACC__) && !defined(__HIP_PLATFORM_AMD__)
#include <cuda_runtime.h>

#define ATTNLAB_HIP_ON_CUDA 1

// types
using hipError_t = cudaError_t;
using hipStream_t = cudaStream_t;
using hipEvent_t = cudaEvent_t;
using hipGraph_t = cudaGraph_t;
using hipGraphExec_t = cudaGraphExec_t;
using hipDeviceProp_t = cudaDeviceProp;
using hipLaunchConfig_t = cudaLaunchConfig_t;
using hipLaunchAttribute = cudaLaunchAttribute;

// constants
#define hipSuccess cudaSuccess
#define hipErrorNoDevice cudaErrorNoDevice
#define hipErrorInsufficientDriver cudaErrorInsufficientDriver
#define hipErrorOutOfMemory cudaErrorMemoryAllocation
#define hipMemcpyHostToDevice cudaMemcpyHostToDevice
#define hipMemcpyDeviceToHost cudaMemcpyDeviceToHost
#define hipMemcpyDeviceToDevice cudaMemcpyDeviceToDevice
#define hipStreamNonBlocking cudaStreamNonBlocking
#define hipStreamCaptureModeThreadLocal cudaStreamCaptureModeThreadLocal
#define hipFuncAttributeMaxDynamicSharedMemorySize cudaFuncAttributeMaxDynamicSharedMemorySize
#define hipFuncAttributeNonPortableClusterSizeAllowed cudaFuncAttributeNonPortableClusterSizeAllowed
#define hipLaunchAttributeClusterDimension cudaLaunchAttributeClusterDimension
#define hipDeviceAttributeMultiprocessorCount cudaDevAttrMultiProcessorCount
#define hipDeviceAttributeComputeCapabilityMajor cudaDevAttrComputeCapabilityMajor
#define hipDeviceAttributeComputeCapabilityMinor cudaDevAttrComputeCapabilityMinor

// errors
#define hipGetErrorString cudaGetErrorString
#define hipGetErrorName cudaGetErrorName
#define hipGetLastError cudaGetLastError
#define hipPeekAtLastError cudaPeekAtLastError

// device
#define hipGetDeviceCount cudaGetDeviceCount
#define hipGetDevice cudaGetDevice
#define hipSetDevice cudaSetDevice
#define hipGetDeviceProperties cudaGetDeviceProperties
#define hipDeviceGetAttribute cudaDeviceGetAttribute
#define hipDeviceSynchronize cudaDeviceSynchronize
#define hipDriverGetVersion cudaDriverGetVersion
#define hipRuntimeGetVersion cudaRuntimeGetVersion
#define hipMemGetInfo cudaMemGetInfo
#define hipFuncSetAttribute cudaFuncSetAttribute
#define hipOccupancyMaxActiveBlocksPerMultiprocessor cudaOccupancyMaxActiveBlocksPerMultiprocessor
#define hipOccupancyMaxActiveClusters cudaOccupancyMaxActiveClusters
#define hipLaunchKernelEx cudaLaunchKernelEx

// memory
#define hipMalloc cudaMalloc
#define hipFree cudaFree
#define hipMemcpy cudaMemcpy
#define hipMemcpyAsync cudaMemcpyAsync
#define hipMemset cudaMemset
#define hipMemsetAsync cudaMemsetAsync

// streams, events, graphs
#define hipStreamCreateWithFlags cudaStreamCreateWithFlags
#define hipStreamDestroy cudaStreamDestroy
#define hipStreamSynchronize cudaStreamSynchronize
#define hipStreamBeginCapture cudaStreamBeginCapture
#define hipStreamEndCapture cudaStreamEndCapture
#define hipEventCreate cudaEventCreate
#define hipEventDestroy cudaEventDestroy
#define hipEventRecord cudaEventRecord
#define hipEventSynchronize cudaEventSynchronize
#define hipEventElapsedTime cudaEventElapsedTime
#define hipGraphInstantiate(exec, graph, node, log, size) cudaGraphInstantiate(exec, graph, 0)
#define hipGraphLaunch cudaGraphLaunch
#define hipGraphDestroy cudaGraphDestroy
#define hipGraphExecDestroy cudaGraphExecDestroy

#else
#include <hip/hip_runtime.h>
#endif

// Warp (wavefront) width known at compile time, for register layouts only. The host checks it
// against the device's warpSize before any launch that depends on it (kern::check_warp_size).
#if defined(__AMDGCN_WAVEFRONT_SIZE)
#define ATTNLAB_KWARP __AMDGCN_WAVEFRONT_SIZE
#elif defined(__HIP_PLATFORM_AMD__) || defined(__HIP_PLATFORM_HCC__)
#define ATTNLAB_KWARP 64
#else
#define ATTNLAB_KWARP 32
#endif

// Full-width lane mask for the *_sync shuffles on CUDA; HIP's shuffles take no mask.
#if defined(ATTNLAB_HIP_ON_CUDA)
#define ATTNLAB_SHFL_XOR(v, m, w) __shfl_xor_sync(0xffffffffu, (v), (m), (w))
#define ATTNLAB_SHFL(v, l, w) __shfl_sync(0xffffffffu, (v), (l), (w))
#else
#define ATTNLAB_SHFL_XOR(v, m, w) __shfl_xor((v), (m), (w))
#define ATTNLAB_SHFL(v, l, w) __shfl((v), (l), (w))
#endif

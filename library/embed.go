package library

import (
	"context"
	"fmt"
	"net/http"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// Embedder turns texts into vectors, one per text, in order.
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// OpenAIEmbedder calls an OpenAI-compatible /v1/embeddings endpoint
// (OpenAI, Ollama, vLLM, llama.cpp server) through the official SDK.
type OpenAIEmbedder struct {
	client openai.Client
	model  string
}

// NewOpenAIEmbedder returns an embedder for baseURL (QUARRY_EMBEDDINGS_URL,
// e.g. http://localhost:11434/v1) and model (QUARRY_EMBEDDINGS_MODEL).
// hc carries the egress policy; apiKey may be empty for local servers.
func NewOpenAIEmbedder(baseURL, model, apiKey string, hc *http.Client) *OpenAIEmbedder {
	if apiKey == "" {
		apiKey = "none"
	}
	opts := []option.RequestOption{option.WithBaseURL(baseURL), option.WithAPIKey(apiKey), option.WithMaxRetries(2)}
	if hc != nil {
		opts = append(opts, option.WithHTTPClient(hc))
	}
	return &OpenAIEmbedder{client: openai.NewClient(opts...), model: model}
}

// Embed embeds texts in one request.
func (e *OpenAIEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	resp, err := e.client.Embeddings.New(ctx, openai.EmbeddingNewParams{
		Model:          openai.EmbeddingModel(e.model),
		Input:          openai.EmbeddingNewParamsInputUnion{OfArrayOfStrings: texts},
		EncodingFormat: openai.EmbeddingNewParamsEncodingFormatFloat,
	})
	if err != nil {
		return nil, fmt.Errorf("embeddings (%s): %w", e.model, err)
	}
	if len(resp.Data) != len(texts) {
		return nil, fmt.Errorf("embeddings (%s): %d vectors for %d texts", e.model, len(resp.Data), len(texts))
	}
	out := make([][]float32, len(texts))
	for _, d := range resp.Data {
		if d.Index < 0 || int(d.Index) >= len(texts) || out[d.Index] != nil {
			return nil, fmt.Errorf("embeddings (%s): bad index %d", e.model, d.Index)
		}
		v := make([]float32, len(d.Embedding))
		for i, x := range d.Embedding {
			v[i] = float32(x)
		}
		out[d.Index] = v
	}
	return out, nil
}

package llm

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// openAIBaseURL is the public OpenAI API.
const openAIBaseURL = "https://api.openai.com/v1/"

// openAIStreamer calls the chat-completions API of OpenAI or of any server
// that speaks it.
type openAIStreamer struct {
	client openai.Client
	model  string
	// legacyMaxTokens sends max_tokens instead of max_completion_tokens:
	// compatible servers (Ollama, llama.cpp, older vLLM) know only the
	// former, OpenAI's reasoning models accept only the latter.
	legacyMaxTokens bool
}

func newOpenAIStreamer(apiKey, baseURL, model string, hc *http.Client) *openAIStreamer {
	opts := []option.RequestOption{
		option.WithAPIKey(apiKey),
		option.WithHTTPClient(hc),
		option.WithMaxRetries(0), // the engine retries, observably
	}
	// Always explicit, so the SDK's OPENAI_BASE_URL lookup never overrides
	// Quarry's own configuration.
	target := baseURL
	if target == "" {
		target = openAIBaseURL
	}
	opts = append(opts, option.WithBaseURL(target))
	return &openAIStreamer{
		client:          openai.NewClient(opts...),
		model:           model,
		legacyMaxTokens: baseURL != "" && !isReasoningModel(model),
	}
}

func (s *openAIStreamer) stream(ctx context.Context, req request, onText func(string)) (reply, error) {
	msgs := make([]openai.ChatCompletionMessageParamUnion, 0, len(req.Messages)+1)
	msgs = append(msgs, openai.SystemMessage(req.System))
	for _, m := range req.Messages {
		if m.Role == roleAssistant {
			msgs = append(msgs, openai.AssistantMessage(m.Content))
		} else {
			msgs = append(msgs, openai.UserMessage(m.Content))
		}
	}
	params := openai.ChatCompletionNewParams{
		Model:         s.model,
		Messages:      msgs,
		StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)},
	}
	if s.legacyMaxTokens {
		params.MaxTokens = openai.Int(int64(req.MaxTokens))
	} else {
		params.MaxCompletionTokens = openai.Int(int64(req.MaxTokens))
	}
	if !isReasoningModel(s.model) {
		params.Temperature = openai.Float(req.Temperature)
	}

	st := s.client.Chat.Completions.NewStreaming(ctx, params)
	defer st.Close()
	var r reply
	var text []byte
	for st.Next() {
		chunk := st.Current()
		if chunk.JSON.Usage.Valid() && (chunk.Usage.PromptTokens > 0 || chunk.Usage.CompletionTokens > 0) {
			r.InputTokens = int(chunk.Usage.PromptTokens)
			r.OutputTokens = int(chunk.Usage.CompletionTokens)
			r.UsageReported = true
		}
		for _, c := range chunk.Choices {
			if c.Index != 0 || c.Delta.Content == "" {
				continue // reasoning_content and other fields are never read
			}
			text = append(text, c.Delta.Content...)
			onText(c.Delta.Content)
		}
		if req.MaxBytes > 0 && len(text) > req.MaxBytes {
			r.Truncated = true
			break
		}
	}
	r.Text = string(text)
	if err := st.Err(); err != nil {
		return r, classifyOpenAI(err)
	}
	return r, nil
}

// classifyOpenAI turns an SDK error into an apiError carrying the status and
// Retry-After the retry loop needs.
func classifyOpenAI(err error) error {
	var apiErr *openai.Error
	if errors.As(err, &apiErr) {
		return &apiError{
			Status:     apiErr.StatusCode,
			RetryAfter: retryAfter(apiErr.Response, time.Now()),
			Retryable:  retryableStatus(apiErr.StatusCode),
			Err:        err,
		}
	}
	return classifyTransport(err)
}
